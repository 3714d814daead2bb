// `floe avro ...`: inspect and rewrite Avro object container files (the
// format of Iceberg manifests and manifest lists).
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "formats/avro/container_reader.h"
#include "formats/avro/container_writer.h"
#include "formats/avro/json_output.h"
#include "io/file_io.h"
#include "io/s3/file_io_factory.h"

namespace floe::cli {

namespace {

using avro::AvroContainerReader;

Result<std::unique_ptr<AvroContainerReader>> OpenAvro(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto io, FileIOForUri(path));
  FLOE_ASSIGN_OR_RETURN(auto file, io->OpenRead(path));
  return AvroContainerReader::Open(std::move(file));
}

int Fail(const char* command, const Status& status) {
  std::cerr << "floe: avro " << command << ": " << status.ToString() << "\n";
  return 1;
}

Status PrintSchema(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenAvro(path));
  avro::Json out = avro::Json::object();
  out["schema"] = reader->writer_schema().ToJsonValue();
  out["codec"] = avro::AvroCodecName(reader->codec());
  avro::Json metadata = avro::Json::object();
  for (const auto& [key, value] : reader->metadata()) metadata[key] = value;
  out["metadata"] = std::move(metadata);
  std::cout << out.dump(2, ' ', false, avro::Json::error_handler_t::replace) << "\n";
  return Status::OK();
}

Status Cat(const std::string& path, int64_t limit) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenAvro(path));
  const avro::AvroNode& root = reader->schema().root();
  std::string line;
  for (int64_t n = 0; limit < 0 || n < limit; ++n) {
    avro::AvroValue record;
    FLOE_ASSIGN_OR_RETURN(bool more, reader->Next(&record));
    if (!more) break;
    line.clear();
    avro::AppendAvroValueJson(root, record, &line);
    line.push_back('\n');
    std::cout << line;
  }
  std::cout.flush();
  if (!std::cout) return Status::IOError("writing to standard output failed");
  return Status::OK();
}

Status Convert(const std::string& in_path, const std::string& out_path, const std::string& codec_name) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenAvro(in_path));
  avro::AvroWriteOptions options;
  options.codec = reader->codec();
  if (!codec_name.empty()) {
    FLOE_ASSIGN_OR_RETURN(options.codec, avro::ParseAvroCodec(codec_name));
  }
  avro::AvroMetadata metadata;
  for (const auto& entry : reader->metadata()) {
    if (entry.first.rfind("avro.", 0) != 0) metadata.push_back(entry);
  }
  FLOE_ASSIGN_OR_RETURN(auto io, FileIOForUri(out_path));
  FLOE_ASSIGN_OR_RETURN(auto out_file, io->Create(out_path));
  FLOE_ASSIGN_OR_RETURN(auto writer,
                        avro::AvroContainerWriter::Open(std::move(out_file), reader->writer_schema(),
                                                        std::move(metadata), options));
  while (true) {
    avro::AvroValue record;
    FLOE_ASSIGN_OR_RETURN(bool more, reader->Next(&record));
    if (!more) break;
    FLOE_RETURN_IF_ERROR(writer->Append(record));
  }
  const int64_t records = writer->records_written();
  FLOE_ASSIGN_OR_RETURN(int64_t size, writer->Close());
  std::cout << "wrote " << records << " records (" << size << " bytes, codec "
            << avro::AvroCodecName(options.codec) << ") to " << out_path << "\n";
  return Status::OK();
}

}  // namespace

void RegisterAvroCommands(CLI::App& app, ExitCode& exit_code) {
  auto* avro_cmd = app.add_subcommand("avro", "Inspect and rewrite Avro container files (Iceberg manifests)");
  avro_cmd->require_subcommand(1);

  auto* schema =
      avro_cmd->add_subcommand("schema", "Print the writer schema, codec and file metadata as JSON");
  auto schema_path = std::make_shared<std::string>();
  schema->add_option("FILE", *schema_path, "Avro container file")->required();
  schema->callback([schema_path, &exit_code] {
    Status st = PrintSchema(*schema_path);
    exit_code.value = st.ok() ? 0 : Fail("schema", st);
  });

  auto* cat = avro_cmd->add_subcommand("cat", "Print each record as one JSON object per line");
  auto cat_path = std::make_shared<std::string>();
  auto cat_limit = std::make_shared<int64_t>(-1);
  cat->add_option("FILE", *cat_path, "Avro container file")->required();
  cat->add_option("--limit", *cat_limit, "Print at most N records");
  cat->callback([cat_path, cat_limit, &exit_code] {
    Status st = Cat(*cat_path, *cat_limit);
    exit_code.value = st.ok() ? 0 : Fail("cat", st);
  });

  auto* convert =
      avro_cmd->add_subcommand("convert", "Rewrite a container file with the same schema and metadata");
  auto in_path = std::make_shared<std::string>();
  auto out_path = std::make_shared<std::string>();
  auto codec = std::make_shared<std::string>();
  convert->add_option("IN", *in_path, "Input Avro container file")->required();
  convert->add_option("OUT", *out_path, "Output file")->required();
  convert->add_option("--codec", *codec, "null, deflate, snappy or zstd (default: the input's codec)")
      ->check(CLI::IsMember({"null", "deflate", "snappy", "zstd", "zstandard"}));
  convert->callback([in_path, out_path, codec, &exit_code] {
    Status st = Convert(*in_path, *out_path, *codec);
    exit_code.value = st.ok() ? 0 : Fail("convert", st);
  });
}

}  // namespace floe::cli
