// Display names of the parquet.thrift enums (declared in parquet_types.h).
#include "formats/parquet/thrift/parquet_types.h"

namespace floe::parquet {

const char* TypeName(Type t) {
  switch (t) {
    case Type::BOOLEAN: return "BOOLEAN";
    case Type::INT32: return "INT32";
    case Type::INT64: return "INT64";
    case Type::INT96: return "INT96";
    case Type::FLOAT: return "FLOAT";
    case Type::DOUBLE: return "DOUBLE";
    case Type::BYTE_ARRAY: return "BYTE_ARRAY";
    case Type::FIXED_LEN_BYTE_ARRAY: return "FIXED_LEN_BYTE_ARRAY";
  }
  return "UNKNOWN_TYPE";
}

const char* EncodingName(Encoding e) {
  switch (e) {
    case Encoding::PLAIN: return "PLAIN";
    case Encoding::PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
    case Encoding::RLE: return "RLE";
    case Encoding::BIT_PACKED: return "BIT_PACKED";
    case Encoding::DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
    case Encoding::DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
    case Encoding::RLE_DICTIONARY: return "RLE_DICTIONARY";
    case Encoding::BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
  }
  return "UNKNOWN_ENCODING";
}

const char* CodecName(CompressionCodec c) {
  switch (c) {
    case CompressionCodec::UNCOMPRESSED: return "UNCOMPRESSED";
    case CompressionCodec::SNAPPY: return "SNAPPY";
    case CompressionCodec::GZIP: return "GZIP";
    case CompressionCodec::LZO: return "LZO";
    case CompressionCodec::BROTLI: return "BROTLI";
    case CompressionCodec::LZ4: return "LZ4";
    case CompressionCodec::ZSTD: return "ZSTD";
    case CompressionCodec::LZ4_RAW: return "LZ4_RAW";
  }
  return "UNKNOWN_CODEC";
}

const char* ConvertedTypeName(ConvertedType c) {
  switch (c) {
    case ConvertedType::UTF8: return "UTF8";
    case ConvertedType::MAP: return "MAP";
    case ConvertedType::MAP_KEY_VALUE: return "MAP_KEY_VALUE";
    case ConvertedType::LIST: return "LIST";
    case ConvertedType::ENUM: return "ENUM";
    case ConvertedType::DECIMAL: return "DECIMAL";
    case ConvertedType::DATE: return "DATE";
    case ConvertedType::TIME_MILLIS: return "TIME_MILLIS";
    case ConvertedType::TIME_MICROS: return "TIME_MICROS";
    case ConvertedType::TIMESTAMP_MILLIS: return "TIMESTAMP_MILLIS";
    case ConvertedType::TIMESTAMP_MICROS: return "TIMESTAMP_MICROS";
    case ConvertedType::UINT_8: return "UINT_8";
    case ConvertedType::UINT_16: return "UINT_16";
    case ConvertedType::UINT_32: return "UINT_32";
    case ConvertedType::UINT_64: return "UINT_64";
    case ConvertedType::INT_8: return "INT_8";
    case ConvertedType::INT_16: return "INT_16";
    case ConvertedType::INT_32: return "INT_32";
    case ConvertedType::INT_64: return "INT_64";
    case ConvertedType::JSON: return "JSON";
    case ConvertedType::BSON: return "BSON";
    case ConvertedType::INTERVAL: return "INTERVAL";
  }
  return "UNKNOWN_CONVERTED_TYPE";
}

}  // namespace floe::parquet
