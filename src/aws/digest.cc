#include "aws/digest.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "common/base64.h"
#include "common/strings.h"

namespace floe::aws {
namespace {

std::span<const uint8_t> AsBytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

}  // namespace

std::string LowerHex(std::span<const uint8_t> bytes) {
  return HexEncode(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::string Sha256Hex(std::span<const uint8_t> bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(bytes.data(), bytes.size(), digest);
  return LowerHex(digest);
}

std::string Sha256Hex(std::string_view text) {
  return Sha256Hex(AsBytes(text));
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int out_len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &out_len);
  return std::string(reinterpret_cast<const char*>(out), out_len);
}

std::array<uint8_t, 16> Md5(std::span<const uint8_t> bytes) {
  std::array<uint8_t, 16> digest{};
  unsigned int digest_len = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest.data(), &digest_len, EVP_md5(), nullptr);
  return digest;
}

std::string Md5Hex(std::string_view text) {
  return LowerHex(Md5(AsBytes(text)));
}

std::string Md5Base64(std::string_view text) {
  const std::array<uint8_t, 16> digest = Md5(AsBytes(text));
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

}  // namespace floe::aws
