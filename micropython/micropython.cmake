# The MicroPython module `burnflex` (flex_c's kernels) as a user C module of a cmake port:
#     make BOARD=RPI_PICO USER_C_MODULES=<repo>/micropython/micropython.cmake
#
# Settings (cmake cache variables; the defaults follow the port's chip):
#   BURNFLEX_OPT    flex_c/src/opt/<name> kernels to build, or "none" for the reference ones
#   BURNFLEX_FLOAT  ON to include the float32 kernels (CPUs with an FPU), else OFF
#   BURNFLEX_FLOAT_KERNELS  ON: the float32 kernels whatever the CPU (a firmware made for
#                   float models: soft-float where there is no FPU); OFF: the CPU's default.
#                   Given, it decides on every configure, whatever an earlier one cached
#   BURNFLEX_HOT_RAM ON to run the int8 kernels' per-MAC inner loops from SRAM (rp2: pico-sdk's
#                   .time_critical sections, which its startup code copies to RAM)
#   BURNFLEX_PLAN   ON (default) for burnflex.plan / run_plan, a whole model in one call
#                   (about 3.7 KB of flash on the RP2040); OFF leaves them out
#   BURNFLEX_OPS    the kernels to keep, by burn.graph's names (conv_s8;softmax_s8;...): the
#                   others are left out of the module's table and of the plan runner, and
#                   the linker drops their code; empty (default) keeps them all
# flex_c is compiled into its own static library (the bindings alone are scanned for qstrs).

set(BURNFLEX_DIR ${CMAKE_CURRENT_LIST_DIR})
get_filename_component(BURNFLEX_FLEX_C ${BURNFLEX_DIR}/../flex_c ABSOLUTE)

if(PICO_PLATFORM STREQUAL "rp2040")
    # Cortex-M0+: no FPU, hand-written M0+ kernels, SRAM for the hot loops
    set(_burnflex_opt cortex_m0plus)
    set(_burnflex_float OFF)
    set(_burnflex_ram ON)
elseif(PICO_PLATFORM STREQUAL "rp2350-riscv")
    set(_burnflex_opt none)
    set(_burnflex_float OFF)
    set(_burnflex_ram ON)
elseif(PICO_PLATFORM)
    # rp2350-arm-s: Cortex-M33 with a single-precision FPU
    set(_burnflex_opt none)
    set(_burnflex_float ON)
    set(_burnflex_ram ON)
else()
    set(_burnflex_opt none)
    set(_burnflex_float ON)
    set(_burnflex_ram OFF)
endif()
set(BURNFLEX_OPT ${_burnflex_opt} CACHE STRING "flex_c opt kernels of the burnflex module")
if(DEFINED BURNFLEX_FLOAT_KERNELS)
    # a normal variable, which hides a BURNFLEX_FLOAT an earlier configure cached
    if(BURNFLEX_FLOAT_KERNELS)
        set(BURNFLEX_FLOAT ON)
    else()
        set(BURNFLEX_FLOAT ${_burnflex_float})
    endif()
else()
    set(BURNFLEX_FLOAT ${_burnflex_float} CACHE BOOL "burnflex: include the float32 kernels")
endif()
set(BURNFLEX_HOT_RAM ${_burnflex_ram} CACHE BOOL "burnflex: hot int8 kernels in SRAM")
set(BURNFLEX_PLAN ON CACHE BOOL "burnflex: the plan runner (plan, run_plan)")
set(BURNFLEX_OPS "" CACHE STRING "burnflex: the kernels to keep (empty: all)")

find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(_burnflex_args ${BURNFLEX_OPT})
if(NOT BURNFLEX_FLOAT)
    list(APPEND _burnflex_args --no-float)
endif()
execute_process(
    COMMAND ${Python3_EXECUTABLE} ${BURNFLEX_FLEX_C}/sources.py ${_burnflex_args}
    OUTPUT_VARIABLE BURNFLEX_FLEX_SOURCES
    RESULT_VARIABLE _burnflex_rc
)
if(NOT _burnflex_rc EQUAL 0)
    message(FATAL_ERROR "burnflex: flex_c/sources.py ${BURNFLEX_OPT} failed")
endif()
string(STRIP "${BURNFLEX_FLEX_SOURCES}" BURNFLEX_FLEX_SOURCES)
string(REPLACE "\n" ";" BURNFLEX_FLEX_SOURCES "${BURNFLEX_FLEX_SOURCES}")
if(NOT BURNFLEX_PLAN)
    list(FILTER BURNFLEX_FLEX_SOURCES EXCLUDE REGEX "/common/(plan|split)\\.c$")
endif()
# every flex_c file is an input of the configuration: a new or renamed one re-runs cmake
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${BURNFLEX_FLEX_C}/sources.py)

# The plan runner, the one flex_c file that reads the kernel selection (FLEX_PLAN_*), is a
# library of its own: a target's objects all depend on its flags file, so another selection
# recompiles plan.c alone, not all of flex_c.
set(_burnflex_plan_sources ${BURNFLEX_FLEX_SOURCES})
list(FILTER _burnflex_plan_sources INCLUDE REGEX "/common/plan\\.c$")
list(FILTER BURNFLEX_FLEX_SOURCES EXCLUDE REGEX "/common/plan\\.c$")
add_library(burnflex_flex STATIC ${BURNFLEX_FLEX_SOURCES})
set(_burnflex_libs burnflex_flex)
if(_burnflex_plan_sources)
    add_library(burnflex_flex_plan STATIC ${_burnflex_plan_sources})
    list(PREPEND _burnflex_libs burnflex_flex_plan)
endif()
if(BURNFLEX_FLOAT AND PICO_PLATFORM STREQUAL "rp2040")
    # soft-float: the float kernels' dot products call the bootrom's fmul directly and add
    # in their own loop (flex_c/src/opt/cortex_m0plus/f32_rom_dot.c)
    target_compile_definitions(burnflex_flex PRIVATE FLEX_ROM_FLOAT=1)
endif()
if(_burnflex_plan_sources AND NOT BURNFLEX_FLOAT)
    # no float32 kernels: the plan runner leaves their steps out
    target_compile_definitions(burnflex_flex_plan PRIVATE FLEX_PLAN_NO_FLOAT=1)
endif()
foreach(_lib IN LISTS _burnflex_libs)
    target_include_directories(${_lib} PUBLIC ${BURNFLEX_FLEX_C}/include)
    # FLEX_SIZE_FIRST: the kernels leave out paths that buy speed with code (docs/flex.md)
    target_compile_definitions(${_lib} PRIVATE FLEX_SIZE_FIRST=1)
    target_compile_options(${_lib} PRIVATE -std=gnu99 -O2 -ffunction-sections
                           -fdata-sections -fno-math-errno)
    if(BURNFLEX_HOT_RAM)
        target_compile_definitions(${_lib} PRIVATE
            "FLEX_HOT=__attribute__((section(\".time_critical.flex\")))")
    endif()
endforeach()

add_library(usermod_burnflex INTERFACE)
target_sources(usermod_burnflex INTERFACE
    ${BURNFLEX_DIR}/burnflex.c
    ${BURNFLEX_DIR}/burnflex_args.c
    ${BURNFLEX_DIR}/burnflex_s8.c
    ${BURNFLEX_DIR}/burnflex_layout.c
    ${BURNFLEX_DIR}/burnflex_f32.c
    ${BURNFLEX_DIR}/burnflex_plan.c
    ${BURNFLEX_DIR}/burnflex_cores.c
)
# the optional ops' bindings; the linker drops those a build leaves out (BURNFLEX_OPS)
file(GLOB _burnflex_extra CONFIGURE_DEPENDS ${BURNFLEX_DIR}/burnflex_extra_*.c)
list(SORT _burnflex_extra)
target_sources(usermod_burnflex INTERFACE ${_burnflex_extra})
target_include_directories(usermod_burnflex INTERFACE ${BURNFLEX_DIR} ${BURNFLEX_FLEX_C}/include)
if(BURNFLEX_FLOAT)
    target_compile_definitions(usermod_burnflex INTERFACE BURNFLEX_FLOAT=1)
else()
    target_compile_definitions(usermod_burnflex INTERFACE BURNFLEX_FLOAT=0)
endif()
if(BURNFLEX_PLAN)
    target_compile_definitions(usermod_burnflex INTERFACE BURNFLEX_PLAN=1)
else()
    target_compile_definitions(usermod_burnflex INTERFACE BURNFLEX_PLAN=0)
endif()
# The kernel selection reaches burnflex.c through a header written here, not through
# compile definitions: those would change the flags of every source of the firmware (and
# recompile it whole) where the header, rewritten only when it changes, recompiles one file.
set(_burnflex_selection "/* the kernels this firmware keeps (BURNFLEX_OPS), by micropython.cmake */\n")
if(BURNFLEX_OPS)
    string(APPEND _burnflex_selection "#define BURNFLEX_OPS 1\n")
    set(_burnflex_steps FLEX_PLAN_ONLY=1)
    foreach(_kernel IN LISTS BURNFLEX_OPS)
        string(APPEND _burnflex_selection "#define BURNFLEX_OP_${_kernel} 1\n")
        list(APPEND _burnflex_steps FLEX_PLAN_${_kernel}=1)
    endforeach()
    if(TARGET burnflex_flex_plan)
        target_compile_definitions(burnflex_flex_plan PRIVATE ${_burnflex_steps})
    endif()
endif()
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/burnflex_selection/burnflex_selection.h
     CONTENT "${_burnflex_selection}")
target_include_directories(usermod_burnflex INTERFACE
                           ${CMAKE_CURRENT_BINARY_DIR}/burnflex_selection)
target_link_libraries(usermod_burnflex INTERFACE ${_burnflex_libs})
target_link_libraries(usermod INTERFACE usermod_burnflex)
