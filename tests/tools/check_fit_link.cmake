# pat-fit's "link" line (cmake -P): a calibration CSV plus ping-pong rows,
# through pat-fit, and what the written model file says.
#   cmake -DPAT_FIT=pat-fit -DCSV=base.csv -DWORK=dir -DROWS="row|row" -DRC=0
#         -DOUTPUT=regex -DLINK=1 -P check_fit_link.cmake
# ROWS: CSV lines, separated by "|" (a ";" would split add_test's argument),
# appended to CSV (none: the calibration as it is); RC: pat-fit's
# exit status; OUTPUT: a regular expression its output must match; LINK: whether
# the model file must have a link line (no file is checked when RC is 2).
file(MAKE_DIRECTORY ${WORK})
file(READ ${CSV} text)
string(REPLACE "|" ";" rows "${ROWS}")
foreach(row IN LISTS rows)
  string(APPEND text "${row}\n")
endforeach()
file(WRITE ${WORK}/in.csv "${text}")
file(REMOVE ${WORK}/out.model)
execute_process(COMMAND ${PAT_FIT} --in ${WORK}/in.csv --out ${WORK}/out.model
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT rc EQUAL RC)
  message(FATAL_ERROR "pat-fit exited with ${rc}, expected ${RC}")
endif()
if(NOT out MATCHES "${OUTPUT}")
  message(FATAL_ERROR "pat-fit's output does not match: ${OUTPUT}")
endif()
if(RC EQUAL 2)
  return()
endif()
file(READ ${WORK}/out.model model)
message("${model}")
# the line as the writer puts it: two numbers, right after the fitted lines (before P)
set(line_re "\nlink +[0-9][0-9.e+-]* [0-9][0-9.e+-]*[ #][^\n]*\nP ")
if(LINK AND NOT model MATCHES "${line_re}")
  message(FATAL_ERROR "no link line right after the fitted lines in ${WORK}/out.model")
endif()
if(NOT LINK AND model MATCHES "\nlink ")
  message(FATAL_ERROR "a link line in ${WORK}/out.model, from a calibration without ping-pong rows")
endif()
