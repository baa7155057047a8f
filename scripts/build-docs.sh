#!/usr/bin/env bash
# Builds the course site with Doxygen: `make docs` (student edition, build/docs/html) or
# `make docs EDITION=instructor` (with solutions and grading specs, build/docs-instructor/html).
# The student edition is the course: lessons, exercises, the bank explorer, how grading works,
# the bank rules and banksim; the instructor edition adds the solutions, the measurements' index
# (measurements/README.md) and the API reference. Both get a full-text search (Pagefind, PyPI's
# pagefind_bin), copy buttons, a light/dark toggle and a phone menu of the whole course.
# Offline: MathJax is copied from Debian's libjs-mathjax; the figures are the ones committed next
# to each lesson (scripts/lesson-figures.sh draws them with banksim; a test checks they are current).
# Any Doxygen warning fails the build.
#   scripts/build-docs.sh student|instructor [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
edition="${1:-student}"
build="${2:-build}"
case "$edition" in
  student) out="$build/docs"; brief="Lessons and graded exercises" ;;
  instructor) out="$build/docs-instructor"; brief="Instructor edition: with solutions and grading specs" ;;
  *) echo "build-docs: EDITION must be student or instructor, not '$edition'" >&2; exit 2 ;;
esac
out=$(realpath -m "$out")
rm -rf "$out"
mkdir -p "$out/pages"
if [ "$edition" = instructor ]; then
  "$build/bin/grade" docs-pages "$out/pages" --instructor
else
  "$build/bin/grade" docs-pages "$out/pages"
fi
# The course's navigation, in this order in the sidebar (Doxygen lists top-level pages in the
# order it reads them: INPUT below follows this list) and in the phone menu
# (scripts/docs-postprocess.py copies the sidebar's course part into it).
pagename() { # the page name Doxygen gives a Markdown file without a {#label}
  local rel=${1#"$root"/}
  echo "md_$(sed 's/[^A-Za-z0-9]/_/g' <<<"${rel%.md}")"
}
pageid() { # a Markdown page's {#label}, or the name Doxygen gives it
  local id
  id=$(head -1 "$1" | grep -o '{#[A-Za-z0-9_-]*}' | tr -d '{#}' || true)
  echo "${id:-$(pagename "$1")}"
}
lesson_files=("$root"/lessons/[0-9][0-9]-*/README.md)
{
  echo "# Lessons {#lessons}"
  echo
  echo "Eight lessons, each with its graded exercise (\\ref exercises \"Exercises\"). Read them in order."
  echo
  for l in "${lesson_files[@]}"; do
    # The page label scripts/doxygen-md-filter.py gives lessons/NN-slug/README.md.
    n=$(basename "$(dirname "$l")" | cut -c1-2)
    echo "- \\subpage lesson-$n"
  done
} >"$out/pages/1-lessons.md"
mv "$out/pages/exercises.md" "$out/pages/2-exercises.md"
cp docs/explorer/explorer.md "$out/pages/3-explorer.md"
mv "$out/pages/grading.md" "$out/pages/4-grading.md"
{
  echo "# Reference {#reference}"
  echo
  echo "The bank model's rules and the emulator the grader runs your kernels under."
  echo
  echo "- \\subpage bank_rules"
  echo "- \\subpage $(pagename "$root/banksim/README.md")"
  if [ "$edition" = instructor ]; then
    echo "- \\subpage measurements"
  else
    echo
    echo "Every number the course quotes was measured on an NVIDIA H200 with the command beside it:"
    echo "the logs are in the repository's \`measurements/\` folder and in the instructor edition"
    echo "(\`make docs EDITION=instructor\`)."
  fi
} >"$out/pages/5-reference.md"
# The measurements' index (instructor edition): one page, measurements/README.md, whose links
# name the pages' files in the repository (the logs themselves are not site pages).
if [ "$edition" = instructor ]; then
  {
    echo "# Measurements {#measurements}"
    tail -n +2 "$root/measurements/README.md" |
      sed -E 's#\[([^]]*)\]\(([^)]*)\)#`measurements/\2`#g'
  } >"$out/pages/5b-measurements.md"
fi
{
  echo "# Instructors {#instructors}"
  echo
  [ "$edition" = instructor ] && echo "- \\subpage solutions"
  echo "- \\subpage deploy"
  echo "- \\subpage grading_security"
  echo "- \\subpage $(pagename "$root/CONTRIBUTING.md")"
} >"$out/pages/6-instructors.md"
[ "$edition" = instructor ] && mv "$out/pages/solutions.md" "$out/pages/6b-solutions.md"
cp docs/search.md "$out/pages/7-search.md"
# Doxygen reads (and so lists) the pages in this order; the API reference (instructor edition)
# comes after them, under its own name.
input=("$root/README.md" "${lesson_files[@]}" "$out/pages/1-lessons.md" "$out/pages/2-exercises.md"
       "$out/pages/3-explorer.md" "$out/pages/4-grading.md" "$out/pages/5-reference.md"
       "$root/docs/bank-rules.md" "$root/banksim/README.md")
[ "$edition" = instructor ] && input+=("$out/pages/5b-measurements.md")
input+=("$out/pages/6-instructors.md")
[ "$edition" = instructor ] && input+=("$out/pages/6b-solutions.md")
input+=("$root/docs/deploy.md" "$root/docs/grading-security.md" "$root/CONTRIBUTING.md"
        "$out/pages/7-search.md")
if [ "$edition" = instructor ]; then
  input+=("$root/bankmodel/include" "$root/banksim/include/banksim/banksim.hpp"
          "$root/banksim/include/banksim/runtime.hpp" "$root/banksim/include/banksim/kernel_entry.hpp"
          "$root/banksim/include/banksim/rewrite.hpp" "$root/grader/include/grader"
          "$root/registry/include/course" "$root/gpu/harness.cuh" "$root/gpu/registry_jobs.cuh"
          "$root/gpu/kernel_table.hpp")
fi
# Links into the measurement pages (not site pages) name the file in the repository.
md_filter="$root/scripts/doxygen-page-filter.sh"
awesome=/usr/share/doxygen-awesome-css
if [ ! -f "$awesome/doxygen-awesome.css" ]; then
  echo "build-docs: the site's style is missing: apt-get install doxygen-awesome-css" >&2
  exit 1
fi
# The full-text search index: Pagefind (PyPI's pagefind_bin; scripts/deps.sh docs installs it).
if ! python3 -c 'import pagefind_bin' 2>/dev/null; then
  echo "build-docs: the site's search indexer is missing: run scripts/deps.sh docs (it runs python3 -m pip install pagefind_bin)" >&2
  exit 1
fi
lesson_dirs=$(ls -d "$root"/lessons/*/ | tr '\n' ' ')
sed -e "s|@ROOT@|$root|g" -e "s|@OUT@|$out|g" -e "s|@INPUT@|${input[*]}|" \
    -e "s|@MD_FILTER@|$md_filter|" -e "s|@LESSON_DIRS@|$lesson_dirs|" -e "s|@PROJECT_BRIEF@|$brief|" \
    -e "s|@AWESOME@|$awesome|g" \
    docs/Doxyfile.in >"$out/Doxyfile"
doxygen "$out/Doxyfile"
cp -rL /usr/share/javascript/mathjax "$out/html/mathjax"
if [ -s "$out/doxygen-warnings.log" ]; then
  echo "build-docs: Doxygen warnings (they are errors here):" >&2
  sed "s|$root/||g" "$out/doxygen-warnings.log" >&2
  exit 1
fi
# The phone menu, CUDA keywords, figure links and search marks (scripts/docs-postprocess.py), then
# the search index over the marked pages (in html/pagefind/).
python3 scripts/docs-postprocess.py "$out/html"
python3 -m pagefind_bin --site "$out/html" --force-language en --quiet
# Solution files carry "BEGIN SOLUTION exNN.K" markers: none may reach the student edition.
if [ "$edition" = student ] && grep -rlE "BEGIN SOLUTION ex[0-9]" "$out/html" >/dev/null 2>&1; then
  echo "build-docs: the student edition contains solution code:" >&2
  grep -rlE "BEGIN SOLUTION ex[0-9]" "$out/html" >&2
  exit 1
fi
echo "build-docs: $edition edition in $out/html/index.html"
