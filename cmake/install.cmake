# Installation and packaging (issue 21): `cmake --install build [--prefix P]` installs
#   bin/tilegen                                  the program
#   include/tilegen/tilegen.hpp                  the public API (standard library only)
#   LIBDIR/libtilegen.a, libtilegen_io.a, libtilegen_core.a    the library (static)
#   LIBDIR/cmake/tilegen/                        find_package(tilegen) -> target tilegen::tilegen
#   LIBDIR/pkgconfig/tilegen.pc                  pkg-config --cflags --libs tilegen
#   share/tilegen/{samples,rules,tilesets}       the samples; the installed program finds them
#   share/man/man1/tilegen.1                     the man page, made from the --help texts
# and `cpack` (in the build dir) makes a .deb of all of it (Debian 12's package names).
# The library links libpng, zlib, tinyxml2 and zstd (shared, from Debian), never SFML: only the
# program's viewer uses SFML.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tilegen RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS tilegen_lib tilegen_io tilegen_core tilegen_options
    EXPORT tilegenTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tilegen DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(TILEGEN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilegen)
install(EXPORT tilegenTargets NAMESPACE tilegen:: DESTINATION ${TILEGEN_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilegenConfig.cmake.in
    ${CMAKE_CURRENT_BINARY_DIR}/tilegenConfig.cmake INSTALL_DESTINATION ${TILEGEN_CMAKE_DIR}
    PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tilegenConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tilegenConfig.cmake
    ${CMAKE_CURRENT_BINARY_DIR}/tilegenConfigVersion.cmake DESTINATION ${TILEGEN_CMAKE_DIR})
# The .pc file finds the prefix from its own place (${pcfiledir}), so any --prefix works.
file(RELATIVE_PATH TILEGEN_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
configure_file(${PROJECT_SOURCE_DIR}/cmake/tilegen.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tilegen.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tilegen.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

foreach(dir samples rules tilesets)
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} DESTINATION ${CMAKE_INSTALL_DATADIR}/tilegen)
endforeach()

# The man page, rebuilt when the program changes (its --help texts live in the program).
set(TILEGEN_MAN_PAGE ${CMAKE_CURRENT_BINARY_DIR}/tilegen.1)
add_custom_command(OUTPUT ${TILEGEN_MAN_PAGE}
    COMMAND ${CMAKE_COMMAND} -DTILEGEN=$<TARGET_FILE:tilegen> -DOUT=${TILEGEN_MAN_PAGE}
            -P ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
    DEPENDS tilegen ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
    COMMENT "Writing the man page from tilegen --help" VERBATIM)
add_custom_target(tilegen_man ALL DEPENDS ${TILEGEN_MAN_PAGE})
install(FILES ${TILEGEN_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# cpack -G DEB: one package with the program, the library and the samples.
set(CPACK_PACKAGE_NAME tilegen)
set(CPACK_PACKAGE_VENDOR "tilegen")
set(CPACK_PACKAGE_CONTACT "tilegen maintainers <tilegen@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "2D tile map generator (Tiled maps) with a C++ library")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION games)
# The program's shared libraries (SFML, tinyxml2, libpng, zlib, zstd, libstdc++) by dpkg-shlibdeps;
# the library's users also need the headers of what its static archives link.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libtinyxml2-dev, libpng-dev, zlib1g-dev, libzstd-dev, libtomlplusplus-dev")
include(CPack)
