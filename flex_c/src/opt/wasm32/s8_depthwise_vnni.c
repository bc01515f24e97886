/* wasm32: the host file, for its portable stand-in (no AVX-512 VNNI here: the entry
 * kernels call it and it declines). */
#include "../host/s8_depthwise_vnni.c"
