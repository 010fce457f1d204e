// Lets the C lifetime test read the library's live object count.
#include "src/library.hpp"

extern "C" int mpix_test_live_resources(void) { return mpix::Resource::live_count(); }
