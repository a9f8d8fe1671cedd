# cmake --install: mortar under a prefix (docs/install.md).
#
#   bin/mortar, bin/mortar-sim           the commands (mortar-sim next to
#                                        mortar, where mortar looks for it)
#   lib/libmortar.so.*                   the SDK (docs/sdk.md): the library,
#   include/mortar/                      its headers,
#   lib/pkgconfig/mortar.pc              pkg-config --cflags --libs mortar,
#   lib/cmake/mortar/                    find_package(mortar): mortar::mortar
#   lib/mortar/plugins/                  where mortar-sim finds plugins
#   lib/mortar/guest/, include/mortar-guest/, lib/pkgconfig/mortar-guest.pc
#                                        the guest library (guest/CMakeLists.txt;
#                                        builds with the guest only)
#   share/mortar/web/                    the explorer's template (if built)
#   share/mortar/experiments/            the platform's example specs
#   share/mortar/studies/<name>/         each study's specs and study file
#   share/mortar/cache-keys              which QEMU build and guest image the
#                                        installed mortar runs with
#   share/doc/mortar/                    README.md, docs/ and examples/
#
# QEMU and the guest image are not installed: they are built from Debian's
# packages by `make setup` and stay in the cache of the user who runs mortar
# (~/.cache/mortar); cache-keys names the builds of this source tree, and the
# installed mortar looks for exactly those (cli/run/host_tools.c). Paths follow
# GNUInstallDirs (included by the top-level CMakeLists.txt).

install(TARGETS mortar-cli mortar-sim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The SDK. Paths in mortar.pc and mortarConfig.cmake are relative to the
# files themselves, so a moved prefix still works.
install(TARGETS mortar EXPORT mortarTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/mortar/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mortar FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/mortar/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mortar)
install(DIRECTORY DESTINATION ${MORTAR_PLUGINDIR})

file(RELATIVE_PATH MORTAR_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" MORTAR_PC_TO_PREFIX ${MORTAR_PC_TO_PREFIX})
configure_file(${CMAKE_CURRENT_LIST_DIR}/mortar.pc.in ${PROJECT_BINARY_DIR}/mortar.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mortar.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(mortar_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/mortar)
file(RELATIVE_PATH MORTAR_CMAKE_TO_PREFIX /p/${mortar_cmake_dir} /p)
configure_file(${CMAKE_CURRENT_LIST_DIR}/mortarConfig.cmake.in
               ${PROJECT_BINARY_DIR}/mortarConfig.cmake @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mortarConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(EXPORT mortarTargets NAMESPACE mortar:: DESTINATION ${mortar_cmake_dir})
install(FILES ${PROJECT_BINARY_DIR}/mortarConfig.cmake
              ${PROJECT_BINARY_DIR}/mortarConfigVersion.cmake
        DESTINATION ${mortar_cmake_dir})

if(TARGET web)
  install(DIRECTORY ${CMAKE_BINARY_DIR}/share/mortar/web/
          DESTINATION ${CMAKE_INSTALL_DATADIR}/mortar/web)
endif()

# The platform's example specs; a study installs its own under
# share/mortar/studies/<name>/ (studies/<name>/CMakeLists.txt).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/experiments/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/mortar/experiments)
install(FILES ${CMAKE_BINARY_DIR}/share/mortar/default-study
        DESTINATION ${CMAKE_INSTALL_DATADIR}/mortar)

# The Wireshark dissector of the default study's protocol (`mortar
# dissector`, docs/traces.md), written by the build from the study file,
# when the build has it (the platform builds without studies/).
if(EXISTS ${PROJECT_SOURCE_DIR}/${MORTAR_DEFAULT_STUDY})
  set(MORTAR_DISSECTOR_DIR ${CMAKE_BINARY_DIR}/share/mortar/wireshark)
  set(MORTAR_DISSECTOR ${MORTAR_DISSECTOR_DIR}/mortar-default-study.lua)
  add_custom_command(OUTPUT ${MORTAR_DISSECTOR}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${MORTAR_DISSECTOR_DIR}
    COMMAND $<TARGET_FILE:mortar-cli> dissector
            --study ${PROJECT_SOURCE_DIR}/${MORTAR_DEFAULT_STUDY} --output ${MORTAR_DISSECTOR}
    DEPENDS mortar-cli ${PROJECT_SOURCE_DIR}/${MORTAR_DEFAULT_STUDY}
    COMMENT "Wireshark dissector of the default study")
  add_custom_target(dissector ALL DEPENDS ${MORTAR_DISSECTOR})
  install(FILES ${MORTAR_DISSECTOR} DESTINATION ${CMAKE_INSTALL_DATADIR}/mortar/wireshark)
endif()

# README.md keeps its docs/ beside it, so its links work.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
# The out-of-tree model examples, to copy and build against the SDK.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples
        USE_SOURCE_PERMISSIONS PATTERN "*.so" EXCLUDE PATTERN "my-device-client" EXCLUDE)

# The guest programs the image holds are those of this build when it has
# them (build/guest-bin), else those of the source tree's build/ (what
# `make setup` puts into the image; sanitizer builds have none).
if(TARGET mortar_guest)
  set(MORTAR_INSTALL_GUEST_BIN ${CMAKE_BINARY_DIR}/guest-bin)
else()
  set(MORTAR_INSTALL_GUEST_BIN ${PROJECT_SOURCE_DIR}/build/guest-bin)
endif()
get_directory_property(MORTAR_COMMIT DIRECTORY ${PROJECT_SOURCE_DIR}/cli
                       DEFINITION MORTAR_COMMIT)
configure_file(${CMAKE_CURRENT_LIST_DIR}/cache_keys.cmake.in
               ${CMAKE_BINARY_DIR}/cache_keys.cmake @ONLY)
install(SCRIPT ${CMAKE_BINARY_DIR}/cache_keys.cmake)
