#include "json.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

const Json *Json::get(const char *key) const {
  if (kind != Object) return nullptr;
  for (const auto &m : members)
    if (m.first == key) return &m.second;
  return nullptr;
}

namespace {

struct Parser {
  const std::string &s;
  size_t i = 0;
  std::string err;
  // Launch files nest three levels; this bounds the recursion on hostile input.
  int depth = 0;

  explicit Parser(const std::string &src) : s(src) {}

  bool fail(const char *what) {
    char buf[160];
    snprintf(buf, sizeof buf, "%s at byte %zu", what, i);
    err = buf;
    return false;
  }
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
  }
  bool lit(const char *word) {
    size_t n = strlen(word);
    if (s.compare(i, n, word) != 0) return false;
    i += n;
    return true;
  }
  static void utf8(std::string &out, unsigned c) {
    if (c < 0x80) {
      out += (char)c;
    } else if (c < 0x800) {
      out += (char)(0xC0 | (c >> 6));
      out += (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += (char)(0xE0 | (c >> 12));
      out += (char)(0x80 | ((c >> 6) & 0x3F));
      out += (char)(0x80 | (c & 0x3F));
    } else {
      out += (char)(0xF0 | (c >> 18));
      out += (char)(0x80 | ((c >> 12) & 0x3F));
      out += (char)(0x80 | ((c >> 6) & 0x3F));
      out += (char)(0x80 | (c & 0x3F));
    }
  }
  bool hex4(unsigned &c) {
    if (i + 4 > s.size()) return fail("a short \\u escape");
    c = 0;
    for (int k = 0; k < 4; k++) {
      char h = s[i++];
      c <<= 4;
      if (h >= '0' && h <= '9') c |= h - '0';
      else if (h >= 'a' && h <= 'f') c |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F') c |= h - 'A' + 10;
      else return fail("a bad \\u escape");
    }
    return true;
  }
  bool string(std::string &out) {
    i++;  // the opening quote
    while (i < s.size()) {
      char c = s[i++];
      if (c == '"') return true;
      if ((unsigned char)c < 0x20) return fail("a control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i >= s.size()) break;
      char e = s[i++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned c1;
          if (!hex4(c1)) return false;
          if (c1 >= 0xD800 && c1 < 0xDC00 && s.compare(i, 2, "\\u") == 0) {
            i += 2;
            unsigned c2;
            if (!hex4(c2)) return false;
            c1 = 0x10000 + ((c1 - 0xD800) << 10) + (c2 - 0xDC00);
          }
          utf8(out, c1);
          break;
        }
        default: return fail("a bad escape");
      }
    }
    return fail("an unterminated string");
  }
  bool value(Json &v) {
    ws();
    if (i >= s.size()) return fail("a missing value");
    if (++depth > 64) return fail("nesting too deep");
    bool ok = value_inner(v);
    depth--;
    return ok;
  }
  bool value_inner(Json &v) {
    char c = s[i];
    if (c == '{') {
      v.kind = Json::Object;
      i++;
      ws();
      if (i < s.size() && s[i] == '}') return i++, true;
      for (;;) {
        ws();
        if (i >= s.size() || s[i] != '"') return fail("a missing member name");
        std::string key;
        if (!string(key)) return false;
        ws();
        if (i >= s.size() || s[i] != ':') return fail("a missing ':'");
        i++;
        Json m;
        if (!value(m)) return false;
        v.members.emplace_back(std::move(key), std::move(m));
        ws();
        if (i < s.size() && s[i] == ',') { i++; continue; }
        if (i < s.size() && s[i] == '}') return i++, true;
        return fail("a missing ',' or '}'");
      }
    }
    if (c == '[') {
      v.kind = Json::Array;
      i++;
      ws();
      if (i < s.size() && s[i] == ']') return i++, true;
      for (;;) {
        Json item;
        if (!value(item)) return false;
        v.items.push_back(std::move(item));
        ws();
        if (i < s.size() && s[i] == ',') { i++; continue; }
        if (i < s.size() && s[i] == ']') return i++, true;
        return fail("a missing ',' or ']'");
      }
    }
    if (c == '"') {
      v.kind = Json::String;
      return string(v.text);
    }
    if (lit("true")) { v.kind = Json::Bool; v.boolean = true; return true; }
    if (lit("false")) { v.kind = Json::Bool; return true; }
    if (lit("null")) return true;
    size_t start = i;
    if (i < s.size() && s[i] == '-') i++;
    while (i < s.size() && (isdigit((unsigned char)s[i]) || s[i] == '.' || s[i] == 'e' ||
                            s[i] == 'E' || s[i] == '+' || s[i] == '-'))
      i++;
    if (i == start) return fail("an unexpected character");
    v.kind = Json::Number;
    v.text = s.substr(start, i - start);
    return true;
  }
};

}  // namespace

bool json_parse(const std::string &src, Json &out, std::string &err) {
  Parser p(src);
  if (!p.value(out)) {
    err = p.err;
    return false;
  }
  p.ws();
  if (p.i != src.size()) {
    p.fail("trailing characters");
    err = p.err;
    return false;
  }
  return true;
}

std::string json_quote(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c >= 0x80) {
          // Replies quote simulator logs, which need not be UTF-8; PTX itself is ASCII.
          out += '?';
        } else if (c < 0x20) {
          char buf[8];
          snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += (char)c;
        }
    }
  }
  return out + "\"";
}
