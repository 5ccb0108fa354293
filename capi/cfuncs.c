// The functions of recur.h that are written in C: they need nothing of
// Go, cannot fail, and so cost no call into the Go runtime. Compiled
// without RECUR_BUILDING, this file checks their definitions against the
// header's prototypes.
#include <stdlib.h>
#include "recur.h"

int recur_abi_version(int32_t *version) {
    if (version == NULL) {
        return RECUR_E_NULL;
    }
    *version = RECUR_ABI_VERSION;
    return RECUR_OK;
}

const char *recur_strerror(int code) {
    switch (code) {
    case RECUR_OK: return "ok";
    case RECUR_E_NULL: return "a required pointer argument is NULL";
    case RECUR_E_HANDLE: return "handle is 0, closed, never issued or of another kind";
    case RECUR_E_UTF8: return "input is not valid UTF-8";
    case RECUR_E_TOO_LONG: return "input is longer than its bound";
    case RECUR_E_PARSE: return "policy does not parse or is invalid";
    case RECUR_E_CONFIG: return "config is malformed or out of range";
    case RECUR_E_STATE: return "saved run is corrupt, invalid or of another policy";
    case RECUR_E_RANGE: return "argument out of range";
    case RECUR_E_OPEN: return "circuit open";
    case RECUR_E_THROTTLED: return "call throttled by the budget";
    case RECUR_E_IN_TX: return "call marked RECUR_F_RETRY inside a transaction";
    case RECUR_E_ORDER: return "call's functions used out of order";
    case RECUR_E_LIMIT: return "too many open handles";
    case RECUR_E_NOMEM: return "out of memory";
    case RECUR_E_INTERNAL: return "internal error in recur (a bug)";
    }
    return "unknown error code";
}

void recur_free(void *p) {
    free(p);
}
