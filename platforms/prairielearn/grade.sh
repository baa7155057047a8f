#!/usr/bin/env bash
# PrairieLearn's external grader, inside the course image (Dockerfile): grades exercise $1 from
# the files in /grade/student and writes /grade/results/results.json in PrairieLearn's format
# (always, also when grading fails). PL_GRADE_ROOT moves /grade (the course's tests).
ROOT=${PL_GRADE_ROOT:-/grade}
COURSE=$(cd "$(dirname "$0")/../.." && pwd)
exec python3 "$COURSE/platforms/common/grade_upload.py" --platform prairielearn \
  --upload "$ROOT/student" --results "$ROOT/results/results.json" --course "$COURSE" \
  --exercise "$1" ${COURSE_GRADE:+--grade "$COURSE_GRADE"}
