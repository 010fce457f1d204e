# mpix_tune --merge as scripts/tune_defaults.sh runs it (no mpiexec): two
# launches' files merge into a file that is written, sane and complete; a
# file that cannot be read is an error naming it, and nothing is written.
execute_process(COMMAND ${TUNE} --merge ${INPUT},${INPUT} --output ${OUTPUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mpix_tune --merge failed with ${rc}")
endif()
if(NOT out MATCHES "wrote ${OUTPUT}" OR out MATCHES "NOT SANE")
  message(FATAL_ERROR "mpix_tune --merge did not write a sane file")
endif()
file(READ ${INPUT} input_text)
file(READ ${OUTPUT} merged_text)
string(JSON input_algorithms LENGTH "${input_text}" algorithms)
string(JSON merged_algorithms LENGTH "${merged_text}" algorithms)
if(NOT input_algorithms EQUAL merged_algorithms OR input_algorithms LESS 2)
  message(FATAL_ERROR "merged file has ${merged_algorithms} algorithms, the launches ${input_algorithms}")
endif()

execute_process(COMMAND ${TUNE} --merge ${INPUT},${OUTPUT}.missing --output ${OUTPUT}.bad
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "missing" OR EXISTS ${OUTPUT}.bad)
  message(FATAL_ERROR "a missing launch file was not an error naming it (rc ${rc}): ${out}${err}")
endif()
