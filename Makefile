# Thin wrapper over CMake/CTest. Targets:
#   make grade           grade exercises/ (CPU model without a GPU); results in build/grade/
#                        The first run configures build/ and builds the grader, banksim and
#                        bankdiagram (GRADE_TARGETS: what every lesson's "Try it" command runs,
#                        no tests or benchmarks), printing one line per build step; later runs
#                        rebuild only what changed.
#       SUBMISSION=DIR   grade another folder laid out like exercises/ (e.g. solutions)
#       SUBMISSIONS=DIR  grade a class: one sub-folder per student (JOBS=N in parallel)
#       EXERCISE=NN      only one exercise;  MODE=cpu|gpu|auto;  VERBOSE=1 compiler output and
#                        bank diagrams;  FORMAT=gradescope,prairielearn,junit
#       NO_SANDBOX=1     run student code without the bubblewrap sandbox (your own code only)
#       SCHEDULER=slurm  with SUBMISSIONS: a SLURM job array, one task per student, then the
#                        gradebook (submits and returns; SBATCH_ARGS adds sbatch options)
#       SEED=N           fixed input sizes (default: a fresh secret seed per run)
#       WIDTHS=clang     CPU mode: count the access widths clang compiled, not nvcc's (default:
#                        nvcc's SASS for sm_90 when nvcc and nvdisasm are found)
#       ISOLATION=auto   where bubblewrap cannot run (some containers): uid isolation as root
#       POLICY=FILE      the grading policy (gate points, thresholds; TOML) instead of
#                        grading-policy.toml at the course's root (or the registry's defaults)
#       GATES=FILE       MODE=gpu: the calibration file with this GPU's gate row (default
#                        build/gpu-gates.json, written by `make calibrate`)
#       GPU_ONLY=1       MODE=gpu without banksim's checks on the CPU first
#   make regions-plugin  banksim's region pass (pass/regions.cpp) built here, where LLVM's
#                        development files are (Debian: llvm-14-dev), copied to
#                        REGIONS_OUT (default .gpu-regions/banksim_regions.so): for a GPU box with
#                        Debian's clang but no LLVM development files, configure there with
#                        -DBANKSIM_REGIONS_PREBUILT=that file (without it banksim runs every
#                        kernel with a fiber per thread: the same counts, about 4x slower)
#   make calibrate       on a GPU box: time the baselines and reference solutions and write this
#                        GPU's row of the speed gates to build/gpu-gates.json (GATES=FILE)
#   make hint EXERCISE=NN [LEVEL=k]   exercise NN's hints: 1 a nudge, 2 the bank arithmetic,
#                        3 the fix's shape (the same as the folded hints of the exercises page)
#   make skeletons       regenerate exercises/ from solutions/ (instructors)
#   make docs            the course site with Doxygen: build/docs/html/index.html
#       EDITION=instructor   with solutions, grading specs, measurement logs and the API
#                        reference: build/docs-instructor/html
#   make docs-serve      the site on http://127.0.0.1:8000/ (PORT=N, EDITION=instructor): its
#                        full-text search needs HTTP, a page opened from a file cannot load it
#   make explorer        rebuild docs/explorer/bankmodel.js (the bank model in WebAssembly, for the
#                        site's bank explorer; needs emscripten) after changing bankmodel/
#   make docs-check      the site checked in headless Chromium at 1280 and 390 px; report and
#                        screenshots (front page, lessons 02, 06 and 08, exercises, explorer,
#                        the phone menu, the search) in build/docs-check/
#   make gradescope      build/dist/gradescope/autograder.zip (Gradescope's autograder)
#   make prairielearn    build/dist/prairielearn/ (one externally graded question per exercise,
#                        and grader-image/: `podman build -t banks-grader` that folder)
#   make classroom       build/dist/github-classroom/ (template repository with the workflow)
#       EXERCISES=04     (or 02,04) an assignment of those exercises only: the zip
#                        (autograder-04.zip) scores out of their points, the questions and
#                        Classroom tests are theirs. Students' files are the skeletons generated
#                        from solutions/, whatever exercises/ holds (a difference is named)
#   make platform-gradescope  (root, 15-30 min) the zip run as Gradescope runs it, in a fresh
#                        root (Ubuntu 22.04 where its archive and keyring are here, else Debian
#                        12): solutions/, skeletons, a compile error, a one-exercise zip
#   make platform-prairielearn  (root, ~10 min) the grader image built with podman, one question
#                        graded through PrairieLearn's /grade contract (a solved and an unsolved file)
#   make platform-slurm  (root, minutes) a single-node SLURM from Debian's slurm-wlm grades a
#                        class of 20 as a job array; checks the gradebook equals a local run's
#   make platform-fresh-root  (root, 15-30 min) a Debian 12 root from mmdebstrap: Gradescope's
#                        setup.sh and run_autograder grade solutions/ at 800/800, then the
#                        README's make grade and make test in the same root
#   make platform-libstdcxx  (~5 min) banksim with GCC 13's and 14's C++ headers (Ubuntu 24.04,
#                        Debian 13), fetched from Debian 13's archive into build/libstdcxx/:
#                        every header a submission may include, a libcu++ corpus row, the
#                        public corpus and the student corpus graded in CPU mode
#   make platform-container  (root, ~8 min) the Dockerfile built with podman from a local
#                        Debian 12 base; make grade (skeletons, solutions 800/800) and make docs in it
#   make test            build everything and run the whole test suite (CTest), as CI does
#   make check           build everything and run the fast tiers only (CTest labels unit and
#                        banksim: minutes), for the edit-compile-test loop. One tier:
#                        `ctest --test-dir build -L TIER` (unit, banksim, grader-e2e, sandbox,
#                        docs, platform)
#   make test-catch2-v3  (minutes) the same suite built against Catch2 v3 (Ubuntu 24.04, Debian
#                        13), fetched from Debian 13's source package into build/catch2-v3/
#   make build           configure + build everything (tests and benchmarks included)
#   make bench           Google Benchmark programs: banksim's speed, and on a GPU every lesson
#                        kernel against cudaMemcpy / cuBLAS (JSON in build/bench/)
#   make bench-class     time grading a class of 20 distinct submissions in CPU mode (JOBS at a
#                        time; WIDTHS=clang for clang's access widths) and a warm re-grade of one
#   make lint            clang-tidy over the C++ sources
#   make format          reformat the sources with clang-format
# Variables: BUILD_DIR (default build), JOBS (parallel build/test jobs), PRESET (the
# CMakePresets.json configure and test preset: default; CI runs ci).
BUILD_DIR ?= build
PRESET ?= default
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build test check bench bench-class grade calibrate regions-plugin skeletons hint docs lint format clean gradescope prairielearn classroom platform-slurm platform-libstdcxx platform-fresh-root platform-container platform-gradescope platform-prairielearn test-catch2-v3 docs-check docs-serve explorer deps-test deps-build deps-grade deps-docs deps-bench

all: build

deps-test deps-build deps-docs deps-bench:
	@scripts/deps.sh $(@:deps-%=%)

# MODE=gpu needs the CUDA toolkit instead of clang: a GPU box without clang grades.
deps-grade:
	@scripts/deps.sh $(if $(filter gpu,$(MODE)),grade-gpu,grade)

# A build configured by `make grade` has no debug info of the course's own programs (a third of
# the compile time; student kernels carry their own): CMAKE_FLAGS=-DCOURSE_DEBUG_INFO=ON keeps it.
$(BUILD_DIR)/build.ninja:
	@mkdir -p $(BUILD_DIR)/logs
	@echo "configuring $(BUILD_DIR)/ with CMake (log: $(BUILD_DIR)/logs/configure.log)"
	@cmake --preset $(PRESET) -B $(BUILD_DIR) $(FIRST_CONFIGURE_FLAGS) $(CMAKE_FLAGS) \
	  >$(BUILD_DIR)/logs/configure.log 2>&1 || { cat $(BUILD_DIR)/logs/configure.log; exit 1; }

build: deps-build $(BUILD_DIR)/build.ninja
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# make test: every tier; make check: the fast ones (the test presets of CMakePresets.json).
test check: deps-test $(BUILD_DIR)/build.ninja
	@mkdir -p $(BUILD_DIR)/logs
	@cmake --preset $(PRESET) -B $(BUILD_DIR) -DCOURSE_REQUIRE_TEST_DEPS=ON $(CMAKE_FLAGS) \
	  >$(BUILD_DIR)/logs/configure.log 2>&1 || { cat $(BUILD_DIR)/logs/configure.log; exit 1; }
	@cmake --build $(BUILD_DIR) -j $(JOBS)
	@ctest --preset $(if $(filter check,$@),check,$(PRESET)) --test-dir $(BUILD_DIR) -j $(JOBS)

GRADE_ARGS = $(if $(SUBMISSION),--submission $(SUBMISSION)) \
             $(if $(SUBMISSIONS),--submissions $(SUBMISSIONS)) \
             $(if $(EXERCISE),--exercise $(EXERCISE)) $(if $(MODE),--mode $(MODE)) \
             $(if $(VERBOSE),--verbose) $(if $(FORMAT),--format $(FORMAT)) \
             $(if $(NO_SANDBOX),--no-sandbox) $(if $(SCHEDULER),--scheduler $(SCHEDULER)) \
             $(if $(ISOLATION),--isolation $(ISOLATION)) \
             $(if $(SEED),--seed $(SEED)) $(if $(WIDTHS),--widths $(WIDTHS)) \
             $(if $(POLICY),--policy $(POLICY)) \
             $(if $(GATES),--gates $(GATES)) $(if $(GPU_ONLY),--gpu-only) \
             --jobs $(JOBS) --out $(BUILD_DIR)/grade

# What `make grade` builds: the grader and its worker, and the programs the lessons' and the
# README's "Try it" commands run (build/bin/banksim, build/bin/bankdiagram; banksim's runtime
# library and region pass come with it); with MODE=gpu the GPU harness too (gpu/CMakeLists.txt,
# gpu_harness). The test grade_builds_what_the_lessons_run fails when a
# command runs a program missing here.
GRADE_TARGETS = grade grade_worker banksim bankdiagram $(if $(filter gpu,$(MODE)),gpu_harness)

# Builds GRADE_TARGETS: Ninja prints one "[n/N] Building ..." line per step (a compiler's errors
# in full); nothing when everything is up to date.
BUILD_GRADE_TARGETS = \
	if ! ninja -C $(BUILD_DIR) -n $(GRADE_TARGETS) 2>/dev/null | grep -q '^ninja: no work to do'; then \
	  echo "building $(GRADE_TARGETS) in $(BUILD_DIR)/ (once; later runs rebuild what changed)"; \
	  cmake --build $(BUILD_DIR) -j $(JOBS) --target $(GRADE_TARGETS) || exit 1; \
	fi

grade hint skeletons: FIRST_CONFIGURE_FLAGS = -DCOURSE_DEBUG_INFO=OFF
grade: deps-grade $(BUILD_DIR)/build.ninja
	@$(BUILD_GRADE_TARGETS)
	@$(BUILD_DIR)/bin/grade $(GRADE_ARGS)

calibrate: FIRST_CONFIGURE_FLAGS = -DCOURSE_DEBUG_INFO=OFF
calibrate: MODE = gpu
calibrate: deps-grade $(BUILD_DIR)/build.ninja
	@$(BUILD_GRADE_TARGETS)
	@$(BUILD_DIR)/bin/grade --mode gpu $(if $(GATES),--gates $(GATES)) \
	  $(if $(EXERCISE),--exercise $(EXERCISE)) --out $(BUILD_DIR)/grade calibrate

REGIONS_OUT ?= .gpu-regions/banksim_regions.so
regions-plugin: deps-grade $(BUILD_DIR)/build.ninja
	@cmake --build $(BUILD_DIR) --target banksim_regions
	@mkdir -p $(dir $(REGIONS_OUT)) && cp $(BUILD_DIR)/lib/banksim_regions.so $(REGIONS_OUT)
	@echo "make regions-plugin: $(REGIONS_OUT) (for clang $$(clang++ --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1))"

skeletons: $(BUILD_DIR)/build.ninja
	@$(BUILD_GRADE_TARGETS)
	@$(BUILD_DIR)/bin/grade skeletons

hint: $(BUILD_DIR)/build.ninja
	@test -n "$(EXERCISE)" || { echo "make hint EXERCISE=NN [LEVEL=1|2|3]"; exit 2; }
	@$(BUILD_GRADE_TARGETS)
	@$(BUILD_DIR)/bin/grade hint $(EXERCISE) --level $(or $(LEVEL),1)

EDITION ?= student
docs: deps-docs $(BUILD_DIR)/build.ninja
	@$(BUILD_GRADE_TARGETS)
	@scripts/build-docs.sh $(EDITION) $(BUILD_DIR)

# The site over HTTP on this machine only (127.0.0.1): Pagefind's search index loads over HTTP.
docs-serve: docs
	@echo "make docs-serve: the site is on http://127.0.0.1:$(or $(PORT),8000)/ (Ctrl-C stops it)"
	@python3 -m http.server --bind 127.0.0.1 \
	  --directory $(BUILD_DIR)/$(if $(filter instructor,$(EDITION)),docs-instructor,docs)/html $(or $(PORT),8000)

# The site's bank explorer: the bank model compiled to WebAssembly (needs Debian's emscripten).
explorer:
	@scripts/build-explorer.sh

# The site in headless Chromium at 1280 and 390 px (see scripts/check-docs-browser.sh); its report
# and screenshots in build/docs-check/.
docs-check: docs
	@scripts/check-docs-browser.sh $(BUILD_DIR)/docs/html $(BUILD_DIR)/docs-check

bench: deps-bench $(BUILD_DIR)/build.ninja
	@mkdir -p $(BUILD_DIR)/logs
	@cmake --preset $(PRESET) -B $(BUILD_DIR) -DCOURSE_REQUIRE_TEST_DEPS=ON $(CMAKE_FLAGS) \
	  >$(BUILD_DIR)/logs/configure.log 2>&1 || \
	  { cat $(BUILD_DIR)/logs/configure.log; exit 1; }
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target bench_banksim
	@mkdir -p $(BUILD_DIR)/bench
	@$(BUILD_DIR)/bin/bench_banksim --benchmark_out=$(BUILD_DIR)/bench/banksim.json \
	  --benchmark_out_format=json $(BENCH_FLAGS)
	@if nvidia-smi -L >/dev/null 2>&1; then \
	  cmake --build $(BUILD_DIR) -j $(JOBS) --target gpu_programs && \
	  $(BUILD_DIR)/gpu/bench_gpu --benchmark_out=$(BUILD_DIR)/bench/gpu.json \
	    --benchmark_out_format=json $(BENCH_FLAGS); \
	else echo "make bench: no GPU here (nvidia-smi -L failed): GPU benchmarks skipped"; fi

# A class of 20 distinct copies of solutions/ graded in CPU mode, then a warm re-grade of one.
bench-class: build
	@JOBS=$(JOBS) scripts/bench-class.sh 20 $(or $(WIDTHS),auto)

lint: build
	@git ls-files '*.cpp' | grep -v '^tests/corpus/' | xargs clang-tidy -p $(BUILD_DIR) --quiet

format:
	@scripts/check-format.sh --fix

clean:
	rm -rf $(BUILD_DIR)

# The suite against Catch2 v3 (Ubuntu 24.04, Debian 13), built from Debian 13's source: minutes.
test-catch2-v3:
	@scripts/test-catch2-v3.sh

gradescope prairielearn classroom: $(BUILD_DIR)/build.ninja
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target grade course-registry >/dev/null
	@python3 platforms/package.py $@ --build $(BUILD_DIR) --out $(BUILD_DIR)/dist \
	  $(if $(EXERCISES),--exercises $(EXERCISES))

platform-slurm: $(BUILD_DIR)/build.ninja
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target grade grade_worker >/dev/null
	@platforms/slurm/single-node-test.sh $(BUILD_DIR)

platform-libstdcxx: $(BUILD_DIR)/build.ninja
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target grade banksim >/dev/null
	@platforms/libstdcxx/test.sh $(BUILD_DIR)

platform-fresh-root: $(BUILD_DIR)/build.ninja
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target grade course-registry >/dev/null
	@BUILD_DIR=$(BUILD_DIR) platforms/fresh-root/test.sh

platform-container:
	@platforms/container/test.sh

platform-gradescope: $(BUILD_DIR)/build.ninja
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target grade course-registry >/dev/null
	@platforms/gradescope/rehearse.sh $(BUILD_DIR)

platform-prairielearn: $(BUILD_DIR)/build.ninja
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target grade course-registry >/dev/null
	@platforms/prairielearn/rehearse.sh $(BUILD_DIR)
