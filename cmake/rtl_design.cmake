# rtl_design.cmake - mortar_add_rtl_design(): an RTL design, Verilated into a
# static library together with its C descriptor and the generic C++ shim
# (sims/verilator/rtl_shim.cpp), so rtl/<design>/CMakeLists.txt is one call:
#
#   mortar_add_rtl_design(testdev TOP testdev SOURCES testdev.sv DESCRIPTOR testdev.c)
#
# (DESCRIPTOR defaults to <name>.c.)
# makes the library mortar_rtl_testdev and adds "testdev" to the designs the
# adapter knows (the global property MORTAR_RTL_DESIGNS; sims/ turns it into
# the table of rtl_designs.c). With PLUGIN the design is not built in but
# made the plugin mortar-rtl-<name>.so, which the adapter finds by name on
# the plugin path (sims/verilator/rtl_plugins.c): a study's design is. The descriptor defines mortar_rtl_design_<name>
# (mortar/rtl_model.h); the shim exports mortar_rtl_model_<name>.
#
# Verilator runs with -Wall, and its warnings are errors: a design must be
# lint-clean. It runs at configure time (a fraction of a second), because the
# list of C++ files it writes is known only afterwards; editing a source
# re-runs the configure step. Verilator's own C++ (the generated model and
# its runtime) is compiled with warnings off and without debug information;
# the shim keeps all of ours. The generated files are compiled as one
# translation unit: each of them spends most of its time parsing
# verilated.h, so one unit builds several times faster than eight.
#
# Speed (docs/models/rtl-adapter.md, "Speed"): every design is Verilated
# with MORTAR_VERILATOR_SPEED_FLAGS, and its generated model is compiled
# optimized (-O2) and without sanitizers or coverage in every build, the
# sanitizer build included: the model is Verilator's code, not ours, and a
# wide datapath evaluates about 1,000 times slower at -O0 under ASan, UBSan
# and coverage (a matmul_b request is a million edges). The shim and the
# descriptor keep the build's flags.
include_guard(GLOBAL)

find_program(MORTAR_VERILATOR verilator)
find_path(MORTAR_VERILATOR_INCLUDE verilated.h
          HINTS ENV VERILATOR_ROOT PATHS /usr/share/verilator PATH_SUFFIXES include)
if(NOT MORTAR_VERILATOR OR NOT MORTAR_VERILATOR_INCLUDE)
  message(FATAL_ERROR "verilator not found: run tools/setup.sh (apt-get install verilator)")
endif()

# Verilator's runtime, compiled once for every design.
add_library(mortar_verilated STATIC
  ${MORTAR_VERILATOR_INCLUDE}/verilated.cpp ${MORTAR_VERILATOR_INCLUDE}/verilated_threads.cpp)
target_include_directories(mortar_verilated SYSTEM PUBLIC
  ${MORTAR_VERILATOR_INCLUDE} ${MORTAR_VERILATOR_INCLUDE}/vltstd)
target_compile_definitions(mortar_verilated PUBLIC
  VM_COVERAGE=0 VM_SC=0 VM_TRACE=0 VM_TRACE_VCD=0 VM_TRACE_FST=0)
target_compile_features(mortar_verilated PUBLIC cxx_std_14)
# Not on the hot path (eval() is the generated code): -O1 halves its build.
target_compile_options(mortar_verilated PRIVATE -w -g0 -O1)
# libatomic: clang's unoptimized std::atomic calls into it (Verilator's own
# CMake support links it too).
target_link_libraries(mortar_verilated PUBLIC Threads::Threads atomic)
# Linked into executables and into designs built as plugins (shared objects).
set_target_properties(mortar_verilated PROPERTIES POSITION_INDEPENDENT_CODE ON)

set(MORTAR_RTL_SHIM ${PROJECT_SOURCE_DIR}/sims/verilator/rtl_shim.cpp)

# --unroll-count: loops over a wide datapath's lanes (128 in matmul_b) are
# unrolled into one statement per lane with constant bit positions; left as
# loops (Verilator unrolls 64 iterations by default), each iteration works
# out its bit offsets at run time and recopies the loop's wide operands.
# -fno-localize: the evaluation's temporaries stay members of the model
# instead of locals of eval(), which Verilator zeroes at every call (for
# matmul_b, 3.5 KiB of wide temporaries cleared at every edge).
set(MORTAR_VERILATOR_SPEED_FLAGS --unroll-count 1024 -fno-localize)
set(MORTAR_RTL_MODEL_COMPILE_OPTIONS -w -g0 -O2 -fno-sanitize=all)

function(mortar_add_rtl_design name)
  cmake_parse_arguments(PARSE_ARGV 1 RTL "PLUGIN" "TOP;DESCRIPTOR" "SOURCES")
  if(NOT RTL_TOP OR NOT RTL_SOURCES OR RTL_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mortar_add_rtl_design(${name}): expected TOP <module> "
                        "SOURCES <files> [DESCRIPTOR <file.c>] [PLUGIN]")
  endif()
  if(NOT RTL_DESCRIPTOR)
    set(RTL_DESCRIPTOR ${name}.c)
  endif()
  set(class V${RTL_TOP})
  set(vdir ${CMAKE_CURRENT_BINARY_DIR}/${class})
  set(sources)
  foreach(src ${RTL_SOURCES})
    get_filename_component(src ${src} ABSOLUTE)
    list(APPEND sources ${src})
  endforeach()
  set(command ${MORTAR_VERILATOR} --cc -Wall ${MORTAR_VERILATOR_SPEED_FLAGS}
              --prefix ${class} --top-module ${RTL_TOP}
              --Mdir ${vdir} --make cmake ${sources})

  # Verilate when the command or a source changed since the last time.
  set(stamp ${vdir}/mortar_command.txt)
  set(outdated FALSE)
  if(NOT EXISTS ${stamp} OR NOT EXISTS ${vdir}/${class}.cmake)
    set(outdated TRUE)
  else()
    file(READ ${stamp} previous)
    if(NOT previous STREQUAL "${command}")
      set(outdated TRUE)
    endif()
    foreach(src ${sources})
      if(${src} IS_NEWER_THAN ${stamp})
        set(outdated TRUE)
      endif()
    endforeach()
  endif()
  if(outdated)
    file(REMOVE_RECURSE ${vdir})
    execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(rc)
      message(FATAL_ERROR "Verilating RTL design ${name} failed:\n${out}")
    endif()
    file(WRITE ${stamp} "${command}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${sources})
  include(${vdir}/${class}.cmake)
  set(all ${vdir}/${class}__mortar_all.cpp)
  set(includes "// Generated by mortar_add_rtl_design(): the model as one unit.\n")
  foreach(src ${${class}_CLASSES_FAST} ${${class}_CLASSES_SLOW}
              ${${class}_SUPPORT_FAST} ${${class}_SUPPORT_SLOW})
    get_filename_component(src ${src} ABSOLUTE BASE_DIR ${vdir})
    string(APPEND includes "#include \"${src}\"\n")
  endforeach()
  file(CONFIGURE OUTPUT ${all} CONTENT "${includes}")

  add_library(mortar_rtl_${name} STATIC ${all} ${MORTAR_RTL_SHIM} ${RTL_DESCRIPTOR})
  set_source_files_properties(${all} PROPERTIES COMPILE_OPTIONS
                              "${MORTAR_RTL_MODEL_COMPILE_OPTIONS}")
  target_include_directories(mortar_rtl_${name} SYSTEM PRIVATE ${vdir})
  target_include_directories(mortar_rtl_${name} PRIVATE ${PROJECT_SOURCE_DIR}
                             ${PROJECT_SOURCE_DIR}/include)
  target_compile_definitions(mortar_rtl_${name} PRIVATE MORTAR_RTL_CLASS=${class}
                             MORTAR_RTL_HEADER="${class}.h" MORTAR_RTL_NAME=${name})
  target_link_libraries(mortar_rtl_${name} PUBLIC mortar_verilated)
  if(NOT RTL_PLUGIN)
    set_property(GLOBAL APPEND PROPERTY MORTAR_RTL_DESIGNS ${name})
    return()
  endif()
  # A plugin: mortar-rtl-<name>.so in the build's plugin directory (where
  # an installed mortar-sim looks, relative to its own place), its entry
  # point alone exported.
  set_target_properties(mortar_rtl_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  add_library(mortar-rtl-${name} MODULE ${PROJECT_SOURCE_DIR}/sims/verilator/rtl_plugin_entry.c)
  target_compile_definitions(mortar-rtl-${name} PRIVATE MORTAR_RTL_NAME=${name})
  target_include_directories(mortar-rtl-${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(mortar-rtl-${name} PRIVATE mortar_rtl_${name} mortar)
  set_target_properties(mortar-rtl-${name} PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden LINK_OPTIONS "-Wl,--exclude-libs,ALL"
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/${MORTAR_PLUGINDIR})
  install(TARGETS mortar-rtl-${name} LIBRARY DESTINATION ${MORTAR_PLUGINDIR})
endfunction()
