// Base64 (RFC 4648, standard alphabet, '=' padding): how AWS JSON protocols
// carry blobs (Kinesis record data) and how Iceberg renders binary values.
//
// Contract: Base64Encode always pads. Base64Decode is strict and bounded: the
// input length must be a multiple of 4, only the standard alphabet and
// trailing padding are accepted, and the unused bits of the last group must
// be zero (so every byte string has exactly one accepted encoding); anything
// else is Corruption naming the offset. Pure functions: safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace floe {

std::string Base64Encode(std::string_view bytes);
// RFC 4648 section 5 (the URL- and filename-safe alphabet, '-' and '_'),
// without padding: as AWS's MSK IAM token and JWTs carry bytes.
std::string Base64UrlEncodeUnpadded(std::string_view bytes);
Result<std::string> Base64Decode(std::string_view text);

}  // namespace floe
