// A small JSON reader for launch files (oracle/src/launch.rs), and string quoting for replies.
// Numbers keep their text so that 64-bit sizes are read exactly.
#ifndef PTXCONF_GPGPU_SIM_JSON_H
#define PTXCONF_GPGPU_SIM_JSON_H

#include <string>
#include <utility>
#include <vector>

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Null;
  bool boolean = false;
  // A string's value, or a number's text as written.
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  // The member `key` of an object, or null.
  const Json *get(const char *key) const;
};

// Parses `src` into `out`; false with a message (naming the byte offset) in `err`.
bool json_parse(const std::string &src, Json &out, std::string &err);

// `s` as a JSON string literal, quotes included.
std::string json_quote(const std::string &s);

#endif
