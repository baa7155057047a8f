# Helper functions, one per kind of artifact.

# course_warnings(target): the warning set every C++ target of the project uses.
function(course_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
endfunction()

# course_test(name SOURCES ... LIBS ...): a Catch2 test program whose TEST_CASEs CTest discovers.
# Their grading runs count clang's access widths (COURSE_GRADE_WIDTHS=clang: nvcc's cost 1.3 s
# per file); nvcc's are tested by students_corpus and everyday_matches_h200.
function(course_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE course_catch_main ${ARG_LIBS})
  course_warnings(${name})
  catch_discover_tests(${name} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                       PROPERTIES ENVIRONMENT
                       "COURSE_BUILD_DIR=${PROJECT_BINARY_DIR};COURSE_GRADE_WIDTHS=clang")
endfunction()
