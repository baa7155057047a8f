# Helper functions, one per kind of artifact.

# course_warnings(target): the warning set every C++ target of the project uses.
function(course_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
endfunction()

# The test tiers (CTest LABELS): every test has exactly one, `make check` runs the fast ones.
#   unit        bank model, registry, protocol, judge, readers; the repository's own checks
#   banksim     the emulator: its API, its CLI on the kernel corpus, everyday CUDA against the H200
#   grader-e2e  the grade program end to end: lessons' commands, the student corpus, a class
#   sandbox     hostile submissions in the sandbox
#   docs        the lessons as students read them and the course site
#   platform    the course-platform bundles (Gradescope, PrairieLearn, Classroom)
set(COURSE_TEST_TIERS unit banksim grader-e2e sandbox docs platform)

# course_test(name TIER tier SOURCES ... LIBS ...): a Catch2 test program whose TEST_CASEs CTest
# discovers, each labelled with the tier. Their grading runs count clang's access widths
# (COURSE_GRADE_WIDTHS=clang: nvcc's cost 1.3 s per file); nvcc's are tested by students_corpus
# and everyday_matches_h200.
function(course_test name)
  cmake_parse_arguments(ARG "" "TIER" "SOURCES;LIBS" ${ARGN})
  if(NOT ARG_TIER IN_LIST COURSE_TEST_TIERS)
    message(FATAL_ERROR "course_test(${name}): TIER must be one of ${COURSE_TEST_TIERS}")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE course_catch_main ${ARG_LIBS})
  course_warnings(${name})
  catch_discover_tests(${name} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                       PROPERTIES LABELS ${ARG_TIER} ENVIRONMENT
                       "COURSE_BUILD_DIR=${PROJECT_BINARY_DIR};COURSE_GRADE_WIDTHS=clang")
endfunction()

# course_tier(tier test...): the tier of tests added with add_test.
function(course_tier tier)
  if(NOT tier IN_LIST COURSE_TEST_TIERS)
    message(FATAL_ERROR "course_tier(${tier}): must be one of ${COURSE_TEST_TIERS}")
  endif()
  set_tests_properties(${ARGN} PROPERTIES LABELS ${tier})
endfunction()
