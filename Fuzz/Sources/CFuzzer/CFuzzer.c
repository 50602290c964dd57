// Nothing to compile: the module is the header's declaration of libFuzzer's driver.
#include "CFuzzer.h"
