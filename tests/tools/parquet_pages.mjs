// Lists the pages of Parquet column chunks by walking their page headers,
// independently of floe's reader (the three readers hide page layout).
//
// Contract: listPages(path, chunk) takes a column chunk's offsets as DuckDB's
// parquet_metadata() reports them and returns [{type, headerBytes,
// compressedBytes, uncompressedBytes, numValues}] for every page in the chunk;
// it throws an Error naming the offset when a header does not parse or a page
// runs past the chunk.
import fs from 'node:fs';

const PAGE_TYPES = ['DATA_PAGE', 'INDEX_PAGE', 'DICTIONARY_PAGE', 'DATA_PAGE_V2'];

// Minimal Thrift compact-protocol reader: enough to read PageHeader's fields
// and skip everything else.
class CompactReader {
  constructor(bytes, pos) {
    this.bytes = bytes;
    this.pos = pos;
  }
  byte() {
    if (this.pos >= this.bytes.length) throw new Error(`page header runs past the chunk at byte ${this.pos}`);
    return this.bytes[this.pos++];
  }
  varint() {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
    }
    throw new Error(`varint too long at byte ${this.pos}`);
  }
  zigzag() {
    const v = this.varint();
    return Number((v >> 1n) ^ -(v & 1n));
  }
  skip(type, depth = 0) {
    if (depth > 32) throw new Error('thrift nesting too deep');
    switch (type) {
      case 1: case 2: return;  // bool in a field header
      case 3: this.byte(); return;
      case 4: case 5: case 6: this.varint(); return;
      case 7: this.pos += 8; return;
      case 8: {
        const length = Number(this.varint());  // read before advancing pos
        this.pos += length;
        return;
      }
      case 9: case 10: {
        const header = this.byte();
        let size = header >> 4;
        if (size === 15) size = Number(this.varint());
        const elementType = header & 0x0f;
        for (let i = 0; i < size; i++) {
          if (elementType === 1 || elementType === 2) this.byte();
          else this.skip(elementType, depth + 1);
        }
        return;
      }
      case 11: {
        const size = Number(this.varint());
        if (size === 0) return;
        const types = this.byte();
        for (let i = 0; i < size; i++) {
          this.skip(types >> 4, depth + 1);
          this.skip(types & 0x0f, depth + 1);
        }
        return;
      }
      case 12: this.struct(() => false, depth + 1); return;
      default: throw new Error(`unknown thrift type ${type} at byte ${this.pos}`);
    }
  }
  // Reads a struct, calling onField(id, type) for each field; onField returns
  // true when it consumed the value itself.
  struct(onField, depth = 0) {
    let lastId = 0;
    for (;;) {
      const header = this.byte();
      if (header === 0) return;
      const type = header & 0x0f;
      const delta = header >> 4;
      const id = delta === 0 ? this.zigzag() : lastId + delta;
      lastId = id;
      if (!onField(id, type)) this.skip(type, depth);
    }
  }
}

function readPageHeader(bytes, pos) {
  const reader = new CompactReader(bytes, pos);
  const page = { type: '', headerBytes: 0, compressedBytes: -1, uncompressedBytes: -1, numValues: -1 };
  reader.struct((id, type) => {
    if (id === 1 && type === 5) {
      const t = reader.zigzag();
      page.type = PAGE_TYPES[t] ?? `TYPE_${t}`;
      return true;
    }
    if (id === 2 && type === 5) { page.uncompressedBytes = reader.zigzag(); return true; }
    if (id === 3 && type === 5) { page.compressedBytes = reader.zigzag(); return true; }
    if ((id === 5 || id === 7 || id === 8) && type === 12) {
      reader.struct((innerId, innerType) => {
        if (innerId === 1 && innerType === 5) { page.numValues = reader.zigzag(); return true; }
        return false;
      });
      return true;
    }
    return false;
  });
  page.headerBytes = reader.pos - pos;
  return page;
}

// `chunk` has data_page_offset, dictionary_page_offset (null when absent) and
// total_compressed_size, as numbers or bigints.
export function listPages(path, chunk) {
  const dataOffset = Number(chunk.data_page_offset);
  const dictionaryOffset = chunk.dictionary_page_offset == null ? 0 : Number(chunk.dictionary_page_offset);
  const start = dictionaryOffset > 0 ? Math.min(dictionaryOffset, dataOffset) : dataOffset;
  const length = Number(chunk.total_compressed_size);
  const fd = fs.openSync(path, 'r');
  let bytes;
  try {
    bytes = Buffer.alloc(length);
    fs.readSync(fd, bytes, 0, length, start);
  } finally {
    fs.closeSync(fd);
  }
  const pages = [];
  for (let pos = 0; pos < length;) {
    const page = readPageHeader(bytes, pos);
    if (page.compressedBytes < 0) throw new Error(`page at file offset ${start + pos} has no compressed size`);
    pos += page.headerBytes + page.compressedBytes;
    if (pos > length) throw new Error(`page at file offset ${start + pos} runs past its column chunk`);
    pages.push(page);
  }
  return pages;
}
