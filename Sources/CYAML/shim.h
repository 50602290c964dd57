#ifndef RULEKIT_CYAML_SHIM_H
#define RULEKIT_CYAML_SHIM_H
#include <yaml.h>
#endif
