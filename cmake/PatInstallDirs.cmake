# Where the installed files lie relative to one another.  What names the
# prefix (the pkg-config files, the module files, the run paths of installed
# programs) finds it from its own place, so that one build serves whatever
# prefix `cmake --install --prefix` is given, a DESTDIR staging for a
# package, and a tree moved after it was installed.  A directory given as an
# absolute path (-DCMAKE_INSTALL_LIBDIR=/opt/lib) says nothing of the
# prefix: what needs it then holds the configured one.
include(GNUInstallDirs)

# The install directory of each kind of file libpat installs (relative to the
# prefix where GNUInstallDirs gives them so).
set(PAT_INSTALL_PKGCONFIGDIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
set(PAT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/PAT)
# examples under libpat's own name: bin/ has only libpat's tools
set(PAT_INSTALL_EXAMPLESDIR ${CMAKE_INSTALL_DATADIR}/libpat/examples)
# `module use <prefix>/share/modulefiles` then `module load libpat`
set(PAT_INSTALL_MODULEDIR ${CMAKE_INSTALL_DATADIR}/modulefiles/libpat)

# <var>: install directory <to> seen from install directory <from> ("" for the
# prefix itself): a relative path where both are relative, else <to>'s
# absolute path.
function(pat_install_path var from to)
  if(IS_ABSOLUTE "${to}")
    set(path "${to}")
  elseif(IS_ABSOLUTE "${from}")
    set(path "${CMAKE_INSTALL_PREFIX}/${to}")
  else()
    file(RELATIVE_PATH path "/prefix/${from}" "/prefix/${to}")
  endif()
  string(REGEX REPLACE "(.)/$" "\\1" path "${path}")
  if(path STREQUAL "")
    set(path ".")
  endif()
  set(${var} "${path}" PARENT_SCOPE)
endfunction()

# The prefix and directories as a .pc file writes them: ${pcfiledir} is
# where pkg-config found the file.
pat_install_path(PAT_PC_PREFIX "${PAT_INSTALL_PKGCONFIGDIR}" "")
if(NOT IS_ABSOLUTE "${PAT_PC_PREFIX}")
  set(PAT_PC_PREFIX "\${pcfiledir}/${PAT_PC_PREFIX}")
endif()
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(PAT_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    set(PAT_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()

# Installed programs that load libpat.so (or libpat_mpi.so) find it from
# their own place; <dir> is where <target> is installed.
function(pat_install_rpath target dir)
  pat_install_path(libdir "${dir}" "${CMAKE_INSTALL_LIBDIR}")
  if(NOT IS_ABSOLUTE "${libdir}")
    set(libdir "\$ORIGIN/${libdir}")
  endif()
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "${libdir}")
endfunction()
