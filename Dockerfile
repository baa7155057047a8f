# The course in a container: Debian 12 and packages from Debian's archive only. Students on macOS
# or Windows get `make grade` and `make docs`; PrairieLearn uses it as its grader image
# (platforms/prairielearn/grade.sh), Gradescope-style platforms can too.
#   docker build -t banks-course .
#   docker run --rm -it -v "$PWD/exercises:/course/exercises" banks-course make grade
# Student code runs under bubblewrap where the container lets it mount /proc, else under uid
# isolation as root (ISOLATION=auto below). Checked by `make platform-container` (podman).
FROM debian:12
ENV DEBIAN_FRONTEND=noninteractive
# A container usually cannot mount /proc for bubblewrap: `make grade` then falls back to uid
# isolation (student code as its own uid, rlimits, killed with its run) and says so.
ENV ISOLATION=auto
# The packages are the ones `make grade` and `make docs` check for (scripts/deps.sh: the
# course's one list, so the image cannot fall behind it: a container graded with --network none
# cannot install what is missing), and the site's search indexer from PyPI. Grading needs only
# Debian's archive: where PyPI cannot be reached the image still builds, and `make docs` in it
# says what is missing.
COPY scripts/deps.sh /tmp/deps.sh
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates python3 make git \
    && /tmp/deps.sh grade \
    && { /tmp/deps.sh docs || echo "Dockerfile: make docs will lack what deps.sh names above" >&2; } \
    && rm -rf /var/lib/apt/lists/* /tmp/deps.sh /root/.cache/pip
COPY . /course
WORKDIR /course
RUN rm -rf build solutions \
    && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOURSE_BUILD_TESTS=OFF \
         -DCOURSE_BUILD_BENCH=OFF -DCOURSE_ENABLE_CUDA=OFF \
    && cmake --build build --target grade grade_worker banksim course-registry \
    && chmod -R o+rX /course
CMD ["bash"]
