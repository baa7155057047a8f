#!/usr/bin/env bash
# Builds the course site with Doxygen: `make docs` (student edition, build/docs/html) or
# `make docs EDITION=instructor` (with solutions and grading specs, build/docs-instructor/html).
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
# The course's navigation: lessons, exercises, instructors, reference, each a page whose
# sub-pages the sidebar nests (the API reference comes after them, under its own name).
pagename() { # the page name Doxygen gives a Markdown file without a {#label}
  local rel=${1#"$root"/}
  echo "md_$(sed 's/[^A-Za-z0-9]/_/g' <<<"${rel%.md}")"
}
{
  echo "# Lessons {#lessons}"
  echo
  echo "Eight lessons, each with its graded exercise (\\ref exercises \"Exercises\"). Read them in order."
  echo
  for l in "$root"/lessons/[0-9][0-9]-*/README.md; do
    # The page label scripts/doxygen-md-filter.py gives lessons/NN-slug/README.md.
    n=$(basename "$(dirname "$l")" | cut -c1-2)
    echo "- \\subpage lesson-$n"
  done
} >"$out/pages/1-lessons.md"
{
  echo "# Instructors {#instructors}"
  echo
  echo "- \\subpage grading"
  echo "- \\subpage deploy"
  echo "- \\subpage grading_security"
  [ "$edition" = instructor ] && echo "- \\subpage solutions"
  echo "- \\subpage $(pagename "$root/CONTRIBUTING.md")"
} >"$out/pages/3-instructors.md"
{
  echo "# Reference {#reference}"
  echo
  echo "The bank model, the emulator, and every measurement on an NVIDIA H200 the course quotes."
  echo
  echo "- \\subpage bank_rules"
  echo "- \\subpage $(pagename "$root/banksim/README.md")"
  for m in "$root"/measurements/*.md "$root"/measurements/*/README.md; do
    echo "- \\subpage $(pagename "$m")"
  done
} >"$out/pages/4-reference.md"
mv "$out/pages/exercises.md" "$out/pages/2-exercises.md"
cp docs/explorer/explorer.md "$out/pages/2b-explorer.md"  # after Exercises in the sidebar
awesome=/usr/share/doxygen-awesome-css
if [ ! -f "$awesome/doxygen-awesome.css" ]; then
  echo "build-docs: the site's style is missing: apt-get install doxygen-awesome-css" >&2
  exit 1
fi
lessons=$(ls -d "$root"/lessons/*/README.md | tr '\n' ' ')
lesson_dirs=$(ls -d "$root"/lessons/*/ | tr '\n' ' ')
sed -e "s|@ROOT@|$root|g" -e "s|@OUT@|$out|g" -e "s|@LESSONS@|$lessons|" \
    -e "s|@PAGES@|$out/pages|" -e "s|@LESSON_DIRS@|$lesson_dirs|" -e "s|@PROJECT_BRIEF@|$brief|" -e "s|@AWESOME@|$awesome|g" \
    docs/Doxyfile.in >"$out/Doxyfile"
doxygen "$out/Doxyfile"
cp -rL /usr/share/javascript/mathjax "$out/html/mathjax"
if [ -s "$out/doxygen-warnings.log" ]; then
  echo "build-docs: Doxygen warnings (they are errors here):" >&2
  sed "s|$root/||g" "$out/doxygen-warnings.log" >&2
  exit 1
fi
# Solution files carry "BEGIN SOLUTION exNN.K" markers: none may reach the student edition.
if [ "$edition" = student ] && grep -rlE "BEGIN SOLUTION ex[0-9]" "$out/html" >/dev/null 2>&1; then
  echo "build-docs: the student edition contains solution code:" >&2
  grep -rlE "BEGIN SOLUTION ex[0-9]" "$out/html" >&2
  exit 1
fi
echo "build-docs: $edition edition in $out/html/index.html"
