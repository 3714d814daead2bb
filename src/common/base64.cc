#include "common/base64.h"

#include <array>
#include <cstdint>

namespace floe {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> MakeDecodeTable() {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  return table;
}

constexpr std::array<int8_t, 256> kDecode = MakeDecodeTable();

}  // namespace

namespace {

constexpr char kUrlAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Encode(std::string_view bytes, const char* alphabet, bool pad) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t n = (static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16) |
                       (static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += alphabet[(n >> 6) & 63];
    out += alphabet[n & 63];
  }
  if (i < bytes.size()) {
    uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    if (i + 1 < bytes.size()) {
      out += alphabet[(n >> 6) & 63];
    } else if (pad) {
      out += '=';
    }
    if (pad) out += '=';
  }
  return out;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  return Encode(bytes, kAlphabet, /*pad=*/true);
}

std::string Base64UrlEncodeUnpadded(std::string_view bytes) {
  return Encode(bytes, kUrlAlphabet, /*pad=*/false);
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Status::Corruption("base64 text of " + std::to_string(text.size()) +
                              " characters is not a multiple of 4 long");
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const size_t padding = last ? (text[i + 3] == '=' ? (text[i + 2] == '=' ? 2 : 1) : 0) : 0;
    uint32_t n = 0;
    for (size_t j = 0; j < 4 - padding; ++j) {
      const int8_t v = kDecode[static_cast<unsigned char>(text[i + j])];
      if (v < 0) return Status::Corruption("invalid base64 character at offset " + std::to_string(i + j));
      n |= static_cast<uint32_t>(v) << (18 - 6 * j);
    }
    out.push_back(static_cast<char>((n >> 16) & 0xFF));
    if (padding < 2) out.push_back(static_cast<char>((n >> 8) & 0xFF));
    if (padding < 1) out.push_back(static_cast<char>(n & 0xFF));
    // Bits below the last kept byte must be zero: one encoding per byte string.
    const uint32_t unused_mask = padding == 2 ? 0xFFFF : padding == 1 ? 0xFF : 0;
    if ((n & unused_mask) != 0) {
      return Status::Corruption("base64 group at offset " + std::to_string(i) + " has non-zero padding bits");
    }
  }
  return out;
}

}  // namespace floe
