# The man pages of mortar and mortar-sim and the bash completion of mortar,
# generated into the build tree from the commands' own usage text
# (cli/commands.c): help2man (Debian package help2man) reads
# `mortar help --all` and `mortar --version`, and `mortar completion bash`
# writes the completion. Included by cli/CMakeLists.txt; the install rules
# for these files are the block at the end.
set(MORTAR_MAN1_DIR ${CMAKE_BINARY_DIR}/share/man/man1)
set(MORTAR_COMPLETION_DIR ${CMAKE_BINARY_DIR}/share/bash-completion/completions)

add_custom_command(
  OUTPUT ${MORTAR_COMPLETION_DIR}/mortar
  COMMAND ${CMAKE_COMMAND} -E make_directory ${MORTAR_COMPLETION_DIR}
  COMMAND sh -c "'$<TARGET_FILE:mortar-cli>' completion bash > '${MORTAR_COMPLETION_DIR}/mortar'"
  DEPENDS mortar-cli
  COMMENT "bash completion of mortar"
  VERBATIM)
set(mortar_generated ${MORTAR_COMPLETION_DIR}/mortar)

find_program(HELP2MAN help2man)
if(HELP2MAN)
  add_custom_command(
    OUTPUT ${MORTAR_MAN1_DIR}/mortar.1
    COMMAND ${CMAKE_COMMAND} -E make_directory ${MORTAR_MAN1_DIR}
    COMMAND ${HELP2MAN} --no-info --section=1 --help-option=help\ --all
            --version-option=--version --name=full-system\ simulation\ of\ hardware\ designs
            --output=${MORTAR_MAN1_DIR}/mortar.1 $<TARGET_FILE:mortar-cli>
    DEPENDS mortar-cli
    COMMENT "man page of mortar (help2man)"
    VERBATIM)
  add_custom_command(
    OUTPUT ${MORTAR_MAN1_DIR}/mortar-sim.1
    COMMAND ${CMAKE_COMMAND} -E make_directory ${MORTAR_MAN1_DIR}
    COMMAND ${HELP2MAN} --no-info --section=1
            --name=run\ mortar\ device\ models\ from\ a\ JSON\ description
            --output=${MORTAR_MAN1_DIR}/mortar-sim.1 $<TARGET_FILE:mortar-sim>
    DEPENDS mortar-sim
    COMMENT "man page of mortar-sim (help2man)"
    VERBATIM)
  list(APPEND mortar_generated ${MORTAR_MAN1_DIR}/mortar.1 ${MORTAR_MAN1_DIR}/mortar-sim.1)
else()
  message(WARNING "help2man not found (run tools/setup.sh): no man pages")
endif()
add_custom_target(mortar-manpage-completion ALL DEPENDS ${mortar_generated})

# ---- install: the man pages and the completion ----------------------------
include(GNUInstallDirs)
install(FILES ${MORTAR_COMPLETION_DIR}/mortar
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
if(HELP2MAN)
  install(FILES ${MORTAR_MAN1_DIR}/mortar.1 ${MORTAR_MAN1_DIR}/mortar-sim.1
          DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
