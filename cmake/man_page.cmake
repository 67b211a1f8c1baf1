# Writes tilegen's man page (section 1) from its --help texts: cmake -DTILEGEN=exe -DOUT=file -P.
# The main --help becomes NAME, SYNOPSIS and DESCRIPTION; each command's --help a subsection of
# COMMANDS (help2man's idea, without help2man: Debian does not install it by default).
execute_process(COMMAND ${TILEGEN} --help OUTPUT_VARIABLE main RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TILEGEN} --help failed")
endif()
execute_process(COMMAND ${TILEGEN} --version OUTPUT_VARIABLE version)
string(STRIP "${version}" version)
# troff: a leading dot or quote would be a request; backslashes are escapes.
function(escape text out)
    string(REPLACE "\\" "\\e" text "${text}")
    string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
    set(${out} "${text}" PARENT_SCOPE)
endfunction()
escape("${main}" main_e)
set(page ".TH TILEGEN 1 \"\" \"${version}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\ntilegen \\- 2D tile maps with autotiling\n")
string(APPEND page ".SH SYNOPSIS\n.nf\n${main_e}.fi\n")
string(APPEND page ".SH COMMANDS\n")
foreach(cmd generate check explain stats view noise bench paint)
    execute_process(COMMAND ${TILEGEN} ${cmd} --help OUTPUT_VARIABLE help)
    escape("${help}" help_e)
    string(APPEND page ".SS ${cmd}\n.nf\n${help_e}.fi\n")
endforeach()
string(APPEND page ".SH FILES\n.TP\n.I PREFIX/share/tilegen/samples, rules, tilesets\n"
    "The sample recipes with their rule files and tilesets. A relative recipe that is not found in "
    "the current directory is looked up there: \\fBtilegen generate meadows\\fR uses "
    "samples/meadows.toml.\n")
string(APPEND page ".SH SEE ALSO\nREADME.md and docs/ in tilegen's sources; docs/library.md for the C++ library.\n")
file(WRITE ${OUT} "${page}")
