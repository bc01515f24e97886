# The MicroPython module `burnflex` (flex_c's kernels) as a user C module of a make port:
#
#     make -C ports/unix USER_C_MODULES=<repo> PROG=micropython-burnflex
#
# USER_C_MODULES names the folder that holds micropython/ (the repository root): make ports
# take every <USER_C_MODULES>/*/micropython.mk, and flex_c/ must sit under that folder too.
# On the unix port the objects of micropython/*.c go to build-*/micropython/, which is also
# the default name of the executable: PROG=<another name> avoids the clash.
# Settings: BURNFLEX_OPT (a flex_c/src/opt folder, or none), BURNFLEX_FLOAT (1 to build
# the float kernels, for CPUs with an FPU; 0 for example on Cortex-M0+ ports) and
# BURNFLEX_PLAN (1, the default, for burnflex.plan / run_plan; 0 leaves them out).

BURNFLEX_DIR := $(USERMOD_DIR)
BURNFLEX_FLEX_C := $(abspath $(USERMOD_DIR)/../flex_c)

ifeq ($(CROSS_COMPILE),)
BURNFLEX_OPT ?= host
else
BURNFLEX_OPT ?= none
endif
BURNFLEX_FLOAT ?= 1
BURNFLEX_PLAN ?= 1
ifeq ($(BURNFLEX_FLOAT),1)
BURNFLEX_SOURCES_FLAGS :=
else
BURNFLEX_SOURCES_FLAGS := --no-float
# the plan runner leaves the float32 kernels' steps out too
CFLAGS_USERMOD += -DFLEX_PLAN_NO_FLOAT=1
endif

SRC_USERMOD_C += $(addprefix $(BURNFLEX_DIR)/, burnflex.c burnflex_args.c burnflex_s8.c \
                 burnflex_layout.c burnflex_f32.c burnflex_plan.c burnflex_cores.c) \
                 $(sort $(wildcard $(BURNFLEX_DIR)/burnflex_extra_*.c))
# flex_c itself: compiled, not scanned for qstrs
BURNFLEX_LIB_C := $(shell $(PYTHON) $(BURNFLEX_FLEX_C)/sources.py $(BURNFLEX_OPT) \
                    $(BURNFLEX_SOURCES_FLAGS))
ifeq ($(BURNFLEX_PLAN),0)
BURNFLEX_LIB_C := $(filter-out %/common/plan.c %/common/split.c,$(BURNFLEX_LIB_C))
endif
SRC_USERMOD_LIB_C += $(BURNFLEX_LIB_C)
CFLAGS_USERMOD += -I$(BURNFLEX_DIR) -I$(BURNFLEX_FLEX_C)/include -DBURNFLEX_FLOAT=$(BURNFLEX_FLOAT) \
                  -DBURNFLEX_PLAN=$(BURNFLEX_PLAN)

# flex_c is written to its own warning set, not to a port's (unix adds -Wextra,
# -Wdouble-promotion, -Wfloat-conversion with -Werror); without errno, a square root is the
# FPU's instruction alone (ports such as qemu link no libm)
$(BUILD)/flex_c/%.o: CFLAGS += -Wno-error -Wno-double-promotion -Wno-float-conversion \
                               -Wno-sign-compare -Wno-missing-field-initializers \
                               -fno-math-errno
