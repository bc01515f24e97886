/* flex_plan_call (flex.h): flex_plan_run with its arguments read from one block. */
#include "../../common/internal.h"

flex_status flex_plan_call(const flex_plan_args *args) {
    if (!args)
        return FLEX_E_NULL;
    return flex_plan_run(args->plan, args->plan_len, args->buffers, args->n_buffers,
                         args->failed);
}
