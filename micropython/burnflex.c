/* The module `burnflex`: its kernels, `version` (flex_version()) and `float` (whether the
 * float kernels are in). One list serves both builds: the firmware's constant globals table
 * and the native module's mpy_init. Each entry spells its qstr out because the native
 * module's build finds qstrs by reading the source text, before the preprocessor. */
#include "burnflex.h"

#define BF_INT8_KERNELS(X)                                                     \
    X(MP_QSTR_conv_s8, bf_conv_s8_obj)                                         \
    X(MP_QSTR_depthwise_conv_s8, bf_depthwise_conv_s8_obj)                     \
    X(MP_QSTR_fully_connected_s8, bf_fully_connected_s8_obj)                   \
    X(MP_QSTR_add_s8, bf_add_s8_obj)                                           \
    X(MP_QSTR_mul_s8, bf_mul_s8_obj)                                           \
    X(MP_QSTR_avg_pool_s8, bf_avg_pool_s8_obj)                                 \
    X(MP_QSTR_max_pool_s8, bf_max_pool_s8_obj)                                 \
    X(MP_QSTR_mean_s8, bf_mean_s8_obj)                                         \
    X(MP_QSTR_softmax_s8, bf_softmax_s8_obj)                                   \
    X(MP_QSTR_logistic_s8, bf_logistic_s8_obj)                                 \
    X(MP_QSTR_tanh_s8, bf_tanh_s8_obj)                                         \
    X(MP_QSTR_requantize_s8, bf_requantize_s8_obj)                             \
    X(MP_QSTR_pad_s8, bf_pad_s8_obj)                                           \
    X(MP_QSTR_concat_s8, bf_concat_s8_obj)

/* A firmware's qstr scan (NO_QSTR defined, no dynamic runtime) must see the float names
 * whatever the build's settings: it does not get the module's compile definitions on every
 * port. A native module compiles with NO_QSTR too, and finds its qstrs in the source text. */
#if BURNFLEX_FLOAT || (defined(NO_QSTR) && !defined(MICROPY_ENABLE_DYNRUNTIME))
#define BF_FLOAT_KERNELS(X)                                                    \
    X(MP_QSTR_quantize_s8, bf_quantize_s8_obj)                                 \
    X(MP_QSTR_dequantize_s8, bf_dequantize_s8_obj)                             \
    X(MP_QSTR_conv_f32, bf_conv_f32_obj)                                       \
    X(MP_QSTR_depthwise_conv_f32, bf_depthwise_conv_f32_obj)                   \
    X(MP_QSTR_fully_connected_f32, bf_fully_connected_f32_obj)                 \
    X(MP_QSTR_add_f32, bf_add_f32_obj)                                         \
    X(MP_QSTR_mul_f32, bf_mul_f32_obj)                                         \
    X(MP_QSTR_clamp_f32, bf_clamp_f32_obj)                                     \
    X(MP_QSTR_logistic_f32, bf_logistic_f32_obj)                               \
    X(MP_QSTR_tanh_f32, bf_tanh_f32_obj)                                       \
    X(MP_QSTR_avg_pool_f32, bf_avg_pool_f32_obj)                               \
    X(MP_QSTR_max_pool_f32, bf_max_pool_f32_obj)                               \
    X(MP_QSTR_mean_f32, bf_mean_f32_obj)                                       \
    X(MP_QSTR_softmax_f32, bf_softmax_f32_obj)                                 \
    X(MP_QSTR_pad, bf_pad_obj)                                                 \
    X(MP_QSTR_concat, bf_concat_obj)
#else
#define BF_FLOAT_KERNELS(X)
#endif

/* The plan runner, where the build has it (the same rule for the qstr scan as above). */
#if BURNFLEX_PLAN || (defined(NO_QSTR) && !defined(MICROPY_ENABLE_DYNRUNTIME))
#define BF_PLAN_FUNCTIONS(X)                                                   \
    X(MP_QSTR_plan, bf_plan_obj)                                               \
    X(MP_QSTR_run_plan, bf_run_plan_obj)
#else
#define BF_PLAN_FUNCTIONS(X)
#endif

#define BF_KERNELS(X) BF_INT8_KERNELS(X) BF_FLOAT_KERNELS(X)

/* the function objects, defined in burnflex_s8.c, burnflex_layout.c and burnflex_f32.c */
#define BF_DECLARE(qstr, obj) extern const mp_obj_fun_builtin_var_t obj;
BF_KERNELS(BF_DECLARE)

#ifdef MICROPY_ENABLE_DYNRUNTIME

#define BF_STORE(qstr, obj) mp_store_global(qstr, MP_OBJ_FROM_PTR(&obj));

mp_obj_t mpy_init(mp_obj_fun_bc_t *self, size_t n_args, size_t n_kw, mp_obj_t *args) {
    MP_DYNRUNTIME_INIT_ENTRY
    BF_KERNELS(BF_STORE)
    BF_PLAN_FUNCTIONS(BF_STORE)
    mp_store_global(MP_QSTR_aligned, MP_OBJ_FROM_PTR(&bf_aligned_obj));
    mp_store_global(MP_QSTR_version, mp_obj_new_int(flex_version()));
    mp_store_global(MP_QSTR_float, mp_obj_new_bool(BURNFLEX_FLOAT));
    MP_DYNRUNTIME_INIT_EXIT
}

#else

#define BF_ENTRY(qstr, obj) {MP_ROM_QSTR(qstr), MP_ROM_PTR(&obj)},

static const mp_rom_map_elem_t burnflex_globals_table[] = {
    {MP_ROM_QSTR(MP_QSTR___name__), MP_ROM_QSTR(MP_QSTR_burnflex)},
    {MP_ROM_QSTR(MP_QSTR_version), MP_ROM_INT(FLEX_VERSION)},
    {MP_ROM_QSTR(MP_QSTR_float), BURNFLEX_FLOAT ? MP_ROM_TRUE : MP_ROM_FALSE},
    {MP_ROM_QSTR(MP_QSTR_aligned), MP_ROM_PTR(&bf_aligned_obj)},
    BF_KERNELS(BF_ENTRY)
    BF_PLAN_FUNCTIONS(BF_ENTRY)
};
static MP_DEFINE_CONST_DICT(burnflex_globals, burnflex_globals_table);

const mp_obj_module_t burnflex_module = {
    .base = {&mp_type_module},
    .globals = (mp_obj_dict_t *)&burnflex_globals,
};

MP_REGISTER_MODULE(MP_QSTR_burnflex, burnflex_module);

#endif
