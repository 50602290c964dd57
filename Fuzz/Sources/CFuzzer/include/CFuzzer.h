// libFuzzer's driver entry, declared for Swift: the fuzz targets start libFuzzer from their own @main
// (SwiftPM gives every executable a main of its own, so libFuzzer's cannot be used).
#ifndef RULEKIT_CFUZZER_H
#define RULEKIT_CFUZZER_H
#include <stddef.h>
#include <stdint.h>

typedef int (*RuleKitFuzzCallback)(const uint8_t *data, size_t size);

int LLVMFuzzerRunDriver(int *argc, char ***argv, RuleKitFuzzCallback callback);

#endif
