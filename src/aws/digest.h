// Digests AWS protocols need: SHA-256 (SigV4 payload hashes), HMAC-SHA256
// (the SigV4 key chain), MD5 (S3's Content-MD5, SQS message bodies, the
// KPL aggregation trailer), over OpenSSL.
//
// Contract: pure functions, safe from any thread; hex output is lower-case.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace floe::aws {

std::string Sha256Hex(std::span<const uint8_t> bytes);
std::string Sha256Hex(std::string_view text);
// The raw 32-byte HMAC-SHA256 of `data` under `key`.
std::string HmacSha256(std::string_view key, std::string_view data);
std::array<uint8_t, 16> Md5(std::span<const uint8_t> bytes);
// Lower-case hex of the MD5 digest (SQS's MD5OfBody).
std::string Md5Hex(std::string_view text);
// Base64 of the MD5 digest (the Content-MD5 header S3 requires on DeleteObjects).
std::string Md5Base64(std::string_view text);
// Lower-case hex of `bytes`.
std::string LowerHex(std::span<const uint8_t> bytes);

}  // namespace floe::aws
