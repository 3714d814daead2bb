#include "expr/string_functions.h"

#include <re2/re2.h>
#include <utf8proc.h>

#include <algorithm>

#include "expr/like_matcher.h"

namespace floe::expr {
namespace {

// Decodes the code point at s[*i], advancing *i; an invalid sequence gives
// its first byte as a negative value (kept verbatim by callers).
int32_t NextCodePoint(std::string_view s, size_t* i) {
  utf8proc_int32_t cp = 0;
  const utf8proc_ssize_t n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data()) + *i,
                                              static_cast<utf8proc_ssize_t>(s.size() - *i), &cp);
  if (n <= 0) {
    const int32_t byte = static_cast<unsigned char>(s[*i]);
    ++*i;
    return -byte - 1;
  }
  *i += static_cast<size_t>(n);
  return cp;
}

void AppendCodePoint(int32_t cp, std::string* out) {
  if (cp < 0) {
    out->push_back(static_cast<char>(-cp - 1));
    return;
  }
  utf8proc_uint8_t buf[4];
  const utf8proc_ssize_t n = utf8proc_encode_char(cp, buf);
  out->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

// Appends `text` with each code point mapped; ASCII runs take a byte loop.
template <typename Map>
void AppendMapped(std::string_view text, Map map, std::vector<uint8_t>* out) {
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      out->push_back(static_cast<uint8_t>(map(c)));
      ++i;
      continue;
    }
    const int32_t cp = NextCodePoint(text, &i);
    std::string encoded;
    AppendCodePoint(cp < 0 ? cp : map(cp), &encoded);
    out->insert(out->end(), encoded.begin(), encoded.end());
  }
}

int32_t LowerCodePoint(int32_t cp) {
  if (cp < 0x80) return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
  return static_cast<int32_t>(utf8proc_tolower(cp));
}
int32_t UpperCodePoint(int32_t cp) {
  if (cp < 0x80) return cp >= 'a' && cp <= 'z' ? cp - 32 : cp;
  return static_cast<int32_t>(utf8proc_toupper(cp));
}

int64_t CodePointCount(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Byte offset of code point `k` (0-based) in s; s.size() when past the end.
size_t ByteOffsetOf(std::string_view s, int64_t k) {
  size_t i = 0;
  for (int64_t seen = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (seen == k) return i;
      ++seen;
    }
  }
  return s.size();
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

// DuckDB's substring: 1-based start (0 starts one before the first
// character, negative counts from the end), negative length goes backwards.
std::string_view Substring(std::string_view s, int64_t offset, int64_t length) {
  const bool ascii =
      std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  const int64_t size = ascii ? static_cast<int64_t>(s.size()) : CodePointCount(s);
  int64_t start;
  if (offset > 0) {
    start = offset - 1;
  } else if (offset < 0) {
    start = SaturatingAdd(size, offset);
  } else {
    start = 0;
    length = SaturatingAdd(length, -1);
    if (length <= 0) return {};
  }
  int64_t end;
  if (length >= 0) {
    end = SaturatingAdd(start, length);
  } else {
    end = start;
    start = SaturatingAdd(start, length);
  }
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, 0, size);
  if (start >= end) return {};
  if (ascii) return s.substr(static_cast<size_t>(start), static_cast<size_t>(end - start));
  const size_t b = ByteOffsetOf(s, start), e = ByteOffsetOf(s, end);
  return s.substr(b, e - b);
}

std::string_view TrimChars(std::string_view s, std::string_view chars, bool left, bool right) {
  std::vector<int32_t> set;
  for (size_t i = 0; i < chars.size();) set.push_back(NextCodePoint(chars, &i));
  auto in_set = [&](int32_t cp) { return std::find(set.begin(), set.end(), cp) != set.end(); };
  size_t begin = 0, end = s.size();
  if (left) {
    while (begin < end) {
      size_t next = begin;
      if (!in_set(NextCodePoint(s, &next))) break;
      begin = next;
    }
  }
  if (right) {
    while (end > begin) {
      size_t start = end - 1;
      while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
      size_t probe = start;
      const int32_t cp = NextCodePoint(s, &probe);
      if (probe != end || !in_set(cp)) break;
      end = start;
    }
  }
  return s.substr(begin, end - begin);
}

std::string_view TrimSpacesOnly(std::string_view s, bool left, bool right) {
  size_t begin = 0, end = s.size();
  if (left) {
    while (begin < end && s[begin] == ' ') ++begin;
  }
  if (right) {
    while (end > begin && s[end - 1] == ' ') --end;
  }
  return s.substr(begin, end - begin);
}

bool AllConstant(const std::vector<Vector>& args) {
  for (const Vector& v : args) {
    if (!v.constant) return false;
  }
  return true;
}

std::vector<const Vector*> Pointers(const std::vector<Vector>& args) {
  std::vector<const Vector*> out;
  for (const Vector& v : args) out.push_back(&v);
  return out;
}

}  // namespace

std::string Utf8Lower(std::string_view text) {
  std::vector<uint8_t> out;
  out.reserve(text.size());
  AppendMapped(text, LowerCodePoint, &out);
  return std::string(out.begin(), out.end());
}

std::string Utf8Upper(std::string_view text) {
  std::vector<uint8_t> out;
  out.reserve(text.size());
  AppendMapped(text, UpperCodePoint, &out);
  return std::string(out.begin(), out.end());
}

Result<Vector> EvalStringFunction(const BoundExpr& e, const std::vector<Vector>& args, int64_t rows,
                                  const EvalScope& scope) {
  (void)scope;
  const bool constant = AllConstant(args);
  const int64_t n = constant ? 1 : rows;
  Column out(e.type);
  if (e.function == FunctionId::kConcat) {
    // Nulls are skipped: the result is never null.
    for (int64_t i = 0; i < n; ++i) {
      const size_t before = out.data.size();
      for (const Vector& v : args) {
        if (v.IsNull(i)) continue;
        const std::string_view s = v.col().StringAt(v.Index(i));
        out.data.insert(out.data.end(), s.begin(), s.end());
      }
      (void)before;
      out.offsets.push_back(static_cast<int64_t>(out.data.size()));
    }
    out.length = n;
    return OwnedVector(std::move(out), constant);
  }
  out.length = n;
  CombineValidity(Pointers(args), n, &out);
  const Column& s = args[0].col();
  auto text = [&](size_t arg, int64_t i) { return args[arg].col().StringAt(args[arg].Index(i)); };
  auto integer = [&](size_t arg, int64_t i) { return args[arg].col().Value<int64_t>(args[arg].Index(i)); };
  if (e.type.id == TypeId::kString) {
    out.offsets.resize(1);
    out.offsets.reserve(static_cast<size_t>(n + 1));
    out.data.reserve(s.data.size());
  } else {
    out.values.resize(static_cast<size_t>(n) * static_cast<size_t>(e.type.fixed_width()));
  }
  std::string scratch;
  auto put = [&](std::string_view v) {
    out.data.insert(out.data.end(), v.begin(), v.end());
    out.offsets.push_back(static_cast<int64_t>(out.data.size()));
  };
  const RE2* re = e.function == FunctionId::kRegexpMatches ? static_cast<const RE2*>(e.state.get()) : nullptr;
  for (int64_t i = 0; i < n; ++i) {
    const bool valid = out.IsValid(i);
    switch (e.function) {
      case FunctionId::kLength: {
        int64_t v = 0;
        if (valid) v = CodePointCount(text(0, i));
        reinterpret_cast<int64_t*>(out.values.data())[i] = v;
        continue;
      }
      case FunctionId::kRegexpMatches:
        out.values[static_cast<size_t>(i)] = valid && RE2::PartialMatch(text(0, i), *re);
        continue;
      default: break;
    }
    if (!valid) {
      put({});
      continue;
    }
    switch (e.function) {
      case FunctionId::kLower:
      case FunctionId::kUpper:
        AppendMapped(text(0, i), e.function == FunctionId::kLower ? LowerCodePoint : UpperCodePoint,
                     &out.data);
        out.offsets.push_back(static_cast<int64_t>(out.data.size()));
        break;
      case FunctionId::kTrim:
      case FunctionId::kLtrim:
      case FunctionId::kRtrim: {
        const bool left = e.function != FunctionId::kRtrim, right = e.function != FunctionId::kLtrim;
        put(args.size() > 1 ? TrimChars(text(0, i), text(1, i), left, right)
                            : TrimSpacesOnly(text(0, i), left, right));
        break;
      }
      case FunctionId::kSubstr:
        put(Substring(text(0, i), integer(1, i), args.size() > 2 ? integer(2, i) : INT64_MAX / 2));
        break;
      case FunctionId::kConcatOp:
        scratch.assign(text(0, i));
        scratch.append(text(1, i));
        put(scratch);
        break;
      default: return Status::Internal("not a string function");
    }
  }
  return OwnedVector(std::move(out), constant);
}

Result<Vector> EvalLike(const BoundExpr& e, const std::vector<Vector>& args, int64_t rows,
                        const EvalScope& scope) {
  const bool constant = AllConstant(args);
  const int64_t n = constant ? 1 : rows;
  Column out(Bool());
  out.length = n;
  out.values.resize(static_cast<size_t>(n));
  CombineValidity(Pointers(args), n, &out);
  const auto* compiled = static_cast<const LikeMatcher*>(e.state.get());
  std::string lowered;
  // A pattern that is not constant is compiled per distinct value in turn.
  std::string last_pattern, last_escape;
  std::optional<LikeMatcher> current;
  for (int64_t i = 0; i < n; ++i) {
    if (!out.IsValid(i)) continue;
    std::string_view text = args[0].col().StringAt(args[0].Index(i));
    if (e.ilike) {
      lowered = Utf8Lower(text);
      text = lowered;
    }
    const LikeMatcher* matcher = compiled;
    if (!matcher) {
      std::string pattern(args[1].col().StringAt(args[1].Index(i)));
      if (e.ilike) pattern = Utf8Lower(pattern);
      std::string escape = args.size() > 2 ? std::string(args[2].col().StringAt(args[2].Index(i))) : "";
      if (!current || pattern != last_pattern || escape != last_escape) {
        Result<LikeMatcher> m = LikeMatcher::Compile(pattern, escape);
        if (!m.ok()) return scope.RowError(ErrorKind::kInvalidArgument, i, m.status().message());
        current = std::move(*m);
        last_pattern = std::move(pattern);
        last_escape = std::move(escape);
      }
      matcher = &*current;
    }
    out.values[static_cast<size_t>(i)] = matcher->Matches(text) != e.negated;
  }
  return OwnedVector(std::move(out), constant);
}

}  // namespace floe::expr
