/* The module `burnflex`: its kernels, `version` (flex_version()) and `float` (whether the
 * float kernels are in). One list serves both builds: the firmware's constant globals table
 * and the native module's mpy_init. Each entry spells its qstr out because the native
 * module's build finds qstrs by reading the source text, before the preprocessor; the
 * second field is the kernel's name (its object is bf_<name>_obj). */
#include "burnflex.h"
#include "burnflex_extra.h"
/* A firmware build names the kernels it keeps in this header (micropython.cmake); the native
 * module's build passes them as -D flags instead. */
#if defined(__has_include)
#if __has_include("burnflex_selection.h")
#include "burnflex_selection.h"
#endif
#endif

#define BF_INT8_KERNELS(X)                                                     \
    X(MP_QSTR_conv_s8, conv_s8)                                                \
    X(MP_QSTR_depthwise_conv_s8, depthwise_conv_s8)                            \
    X(MP_QSTR_fully_connected_s8, fully_connected_s8)                          \
    X(MP_QSTR_add_s8, add_s8)                                                  \
    X(MP_QSTR_mul_s8, mul_s8)                                                  \
    X(MP_QSTR_avg_pool_s8, avg_pool_s8)                                        \
    X(MP_QSTR_max_pool_s8, max_pool_s8)                                        \
    X(MP_QSTR_mean_s8, mean_s8)                                                \
    X(MP_QSTR_softmax_s8, softmax_s8)                                          \
    X(MP_QSTR_logistic_s8, logistic_s8)                                        \
    X(MP_QSTR_tanh_s8, tanh_s8)                                                \
    X(MP_QSTR_requantize_s8, requantize_s8)                                    \
    X(MP_QSTR_pad_s8, pad_s8)                                                  \
    X(MP_QSTR_concat_s8, concat_s8)                                            \
    BF_EXTRA_INT8_KERNELS(X)

/* A firmware's qstr scan (NO_QSTR defined, no dynamic runtime) must see the float names
 * whatever the build's settings: it does not get the module's compile definitions on every
 * port. A native module compiles with NO_QSTR too, and finds its qstrs in the source text. */
#if BURNFLEX_FLOAT || (defined(NO_QSTR) && !defined(MICROPY_ENABLE_DYNRUNTIME))
#define BF_FLOAT_KERNELS(X)                                                    \
    X(MP_QSTR_quantize_s8, quantize_s8)                                        \
    X(MP_QSTR_dequantize_s8, dequantize_s8)                                    \
    X(MP_QSTR_conv_f32, conv_f32)                                              \
    X(MP_QSTR_depthwise_conv_f32, depthwise_conv_f32)                          \
    X(MP_QSTR_fully_connected_f32, fully_connected_f32)                        \
    X(MP_QSTR_add_f32, add_f32)                                                \
    X(MP_QSTR_mul_f32, mul_f32)                                                \
    X(MP_QSTR_clamp_f32, clamp_f32)                                            \
    X(MP_QSTR_logistic_f32, logistic_f32)                                      \
    X(MP_QSTR_tanh_f32, tanh_f32)                                              \
    X(MP_QSTR_avg_pool_f32, avg_pool_f32)                                      \
    X(MP_QSTR_max_pool_f32, max_pool_f32)                                      \
    X(MP_QSTR_mean_f32, mean_f32)                                              \
    X(MP_QSTR_softmax_f32, softmax_f32)                                        \
    X(MP_QSTR_pad, pad)                                                        \
    X(MP_QSTR_concat, concat)                                                  \
    BF_EXTRA_FLOAT_KERNELS(X)
#else
#define BF_FLOAT_KERNELS(X)
#endif

/* The plan runner, where the build has it (the same rule for the qstr scan as above). */
#if BURNFLEX_PLAN || (defined(NO_QSTR) && !defined(MICROPY_ENABLE_DYNRUNTIME))
#define BF_PLAN_FUNCTIONS(X)                                                   \
    X(MP_QSTR_plan, plan)                                                      \
    X(MP_QSTR_run_plan, run_plan)
#else
#define BF_PLAN_FUNCTIONS(X)
#endif

#define BF_KERNELS(X) BF_INT8_KERNELS(X) BF_FLOAT_KERNELS(X)

/* Which kernels the module offers: all of them, unless the build defines BURNFLEX_OPS (a
 * firmware made for given models, `burn firmware build --ops-from`) and then
 * BURNFLEX_OP_<name>=1 for each kernel to keep. The others stay out of the module's table,
 * so the linker's section GC drops their bindings and C kernels. BF_KEEP(name) is 1 when
 * BURNFLEX_OP_<name> is defined as 1, else 0 (the macro pasted onto BF_YES_ gives "~," and
 * shifts 1 into second place only then); BF_WHEN(keep, ...) gives its tail when keep is 1.
 * The qstr scan sees every kernel, as above. */
#if defined(BURNFLEX_OPS) && !(defined(NO_QSTR) && !defined(MICROPY_ENABLE_DYNRUNTIME))
#define BF_YES_1 ~,
#define BF_SECOND(a, b, ...) b
#define BF_KEEP(name) BF_KEEP_(BURNFLEX_OP_##name)
#define BF_KEEP_(flag) BF_KEEP__(flag)
#define BF_KEEP__(flag) BF_KEEP___(BF_YES_##flag)
#define BF_KEEP___(probe) BF_SECOND(probe 1, 0, ~)
#else
#define BF_KEEP(name) 1
#endif
#define BF_WHEN(keep, ...) BF_WHEN_(keep, __VA_ARGS__)
#define BF_WHEN_(keep, ...) BF_WHEN_##keep(__VA_ARGS__)
#define BF_WHEN_1(...) __VA_ARGS__
#define BF_WHEN_0(...)

/* the function objects, defined in burnflex_s8.c, burnflex_layout.c and burnflex_f32.c */
#define BF_DECLARE(qstr, name) extern const mp_obj_fun_builtin_var_t bf_##name##_obj;
BF_KERNELS(BF_DECLARE)

#ifdef MICROPY_ENABLE_DYNRUNTIME

#define BF_STORE(qstr, name) mp_store_global(qstr, MP_OBJ_FROM_PTR(&bf_##name##_obj));
#define BF_STORE_KEPT(qstr, name) BF_WHEN(BF_KEEP(name), BF_STORE(qstr, name))

mp_obj_t mpy_init(mp_obj_fun_bc_t *self, size_t n_args, size_t n_kw, mp_obj_t *args) {
    MP_DYNRUNTIME_INIT_ENTRY
    BF_KERNELS(BF_STORE_KEPT)
    BF_PLAN_FUNCTIONS(BF_STORE)
    mp_store_global(MP_QSTR_aligned, MP_OBJ_FROM_PTR(&bf_aligned_obj));
#if BURNFLEX_PLAN
    mp_store_global(MP_QSTR_cores, MP_OBJ_FROM_PTR(&bf_cores_obj));
#endif
    mp_store_global(MP_QSTR_version, mp_obj_new_int(flex_version()));
    mp_store_global(MP_QSTR_float, mp_obj_new_bool(BURNFLEX_FLOAT));
    MP_DYNRUNTIME_INIT_EXIT
}

#else

#define BF_ENTRY(qstr, name) {MP_ROM_QSTR(qstr), MP_ROM_PTR(&bf_##name##_obj)},
#define BF_ENTRY_KEPT(qstr, name) BF_WHEN(BF_KEEP(name), BF_ENTRY(qstr, name))

static const mp_rom_map_elem_t burnflex_globals_table[] = {
    {MP_ROM_QSTR(MP_QSTR___name__), MP_ROM_QSTR(MP_QSTR_burnflex)},
    {MP_ROM_QSTR(MP_QSTR_version), MP_ROM_INT(FLEX_VERSION)},
    {MP_ROM_QSTR(MP_QSTR_float), BURNFLEX_FLOAT ? MP_ROM_TRUE : MP_ROM_FALSE},
    {MP_ROM_QSTR(MP_QSTR_aligned), MP_ROM_PTR(&bf_aligned_obj)},
    {MP_ROM_QSTR(MP_QSTR_cores), MP_ROM_PTR(&bf_cores_obj)},
    BF_KERNELS(BF_ENTRY_KEPT)
    BF_PLAN_FUNCTIONS(BF_ENTRY)
};
static MP_DEFINE_CONST_DICT(burnflex_globals, burnflex_globals_table);

const mp_obj_module_t burnflex_module = {
    .base = {&mp_type_module},
    .globals = (mp_obj_dict_t *)&burnflex_globals,
};

MP_REGISTER_MODULE(MP_QSTR_burnflex, burnflex_module);

#endif
