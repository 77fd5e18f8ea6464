# Parser sources: target_sources(bplace_lsf PRIVATE ...)
# Pure parsers of LSF command output; see docs/lsf-formats.md.
target_sources(bplace_lsf PRIVATE
  bhosts_parser.cc
  bjobs_command.cc
  bjobs_command_line.cc
  bjobs_list.cc
  bjobs_writer.cc
  bkill_command_line.cc
  bjobs_long_parser.cc
  bkill_reply.cc
  bjobs_parser.cc
  bqueues_long_parser.cc
  bqueues_parser.cc
  bsub_reply.cc
  command_failure.cc
  group_parser.cc
  job_record.cc
  json_reader.cc
  lsclusters_parser.cc
  lsb_events_parser.cc
  lsid_parser.cc
  lsload_parser.cc
  lsf_messages.cc
  lsf_time.cc
  table.cc
)
# ParseBqueuesJson reads `bqueues -o ... -json` with nlohmann::json.
target_link_libraries(bplace_lsf PUBLIC nlohmann_json::nlohmann_json)
