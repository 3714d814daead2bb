// Test helper: a moto server (local AWS APIs) for the AWS client tests, and
// boto3 (tests/tools/aws_driver.py) as the independent client that sets up
// streams, queues and buckets and checks what floe did.
//
// MotoServer::Start returns "" when moto runs, else the reason to skip
// ("moto_server is not installed ..."): moto is a Python package, not a
// Debian one, so the tests that need it skip where it is absent. moto is
// started through tests/tools/moto.mjs, which stops it when this process's
// pipe closes, so a crashed test leaves no server behind. Not thread-safe.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "common/json.h"
#include "common/status.h"
#include "test_util.h"
#include "unit/s3/s3_test_servers.h"

namespace floe::testing {

// Runs `command` through the shell; its stdout goes to *out. The exit status, or -1.
inline int RunShell(const std::string& command, std::string* out) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) out->append(buffer, n);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

class MotoServer {
 public:
  std::string Start() {
    std::string ignored;
    if (RunShell("command -v moto_server >/dev/null 2>&1", &ignored) != 0) {
      return "moto_server is not installed (pip install \"moto[server]\" boto3 to run the AWS tests)";
    }
    if (RunShell("python3 -c 'import boto3' >/dev/null 2>&1", &ignored) != 0) {
      return "boto3 is not installed for python3 (pip install boto3)";
    }
    log_ = dir_.File("moto.log");
    auto port =
        node_.Start({(SourceDir() / "tests/tools/moto.mjs").string(), log_}, dir_.File("moto-node.log"));
    if (!port) return "moto did not start: " + node_.error() + " (see " + log_ + ")";
    port_ = *port;
    return "";
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  const std::string& log() const { return log_; }

  // Runs one aws_driver.py command and returns its JSON answer. One boto3
  // process (aws_driver.py --serve) serves every command of the test binary.
  Result<json::Json> Driver(const json::Json& command) {
    const std::string name = command.value("command", std::string("?"));
    if (!driver_.running() &&
        !driver_.Start({"python3", (SourceDir() / "tests/tools/aws_driver.py").string(), url(), "--serve"},
                       dir_.File("driver.log"))) {
      return Status::IOError("aws_driver.py does not start: " + driver_.error());
    }
    std::optional<std::string> line;
    if (driver_.WriteLine(command.dump())) line = driver_.ReadLine(std::chrono::minutes(5));
    if (!line) {
      driver_.Stop();
      std::ifstream log(dir_.File("driver.log"));
      std::stringstream text;
      text << log.rdbuf();
      std::string tail = text.str();
      if (tail.size() > 2000) tail = tail.substr(tail.size() - 2000);
      return Status::IOError("aws_driver.py stopped during " + name + ": " + tail);
    }
    FLOE_ASSIGN_OR_RETURN(json::Json answer, json::ParseJson(*line));
    if (answer.contains("error")) {
      return Status::IOError("aws_driver.py " + name + " failed: " + answer["error"].get<std::string>());
    }
    return answer["result"];
  }

  // Runs tools/kpl_aggregate.mjs (AWS Labs' aggregator) over `records`.
  Result<json::Json> Aggregate(const json::Json& records) {
    const std::string file = dir_.File("kpl-" + std::to_string(++commands_) + ".json");
    std::ofstream(file) << records.dump();
    std::string out;
    const int status =
        RunShell("node " + ShellQuote((SourceDir() / "tests/tools/kpl_aggregate.mjs").string()) + " " +
                     ShellQuote(file) + " 2>>" + ShellQuote(dir_.File("driver.log")),
                 &out);
    if (status != 0) return Status::IOError("kpl_aggregate.mjs failed (exit " + std::to_string(status) + ")");
    return json::ParseJson(out);
  }

 private:
  TempDir dir_;
  NodeProcess node_;
  ChildProcess driver_;
  int port_ = 0;
  int commands_ = 0;
  std::string log_;
};

// A fixture sharing one moto server among the tests of a binary; each test
// skips, saying why, where moto cannot run.
class MotoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new MotoServer();
    skip_reason_ = new std::string(server_->Start());
  }
  static void TearDownTestSuite() {
    delete server_;
    delete skip_reason_;
    server_ = nullptr;
    skip_reason_ = nullptr;
  }
  void SetUp() override {
    if (!skip_reason_->empty()) GTEST_SKIP() << "skipped: " << *skip_reason_;
  }
  static MotoServer& moto() { return *server_; }

 private:
  static inline MotoServer* server_ = nullptr;
  static inline std::string* skip_reason_ = nullptr;
};

}  // namespace floe::testing
