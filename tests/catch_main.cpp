// The one Catch2 main of the test suite.
#define CATCH_CONFIG_MAIN
#include "course_catch.hpp"
