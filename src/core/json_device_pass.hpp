// A declaration-only stand-in for nlohmann::json, seen only by nvcc's device passes.
//
// Why: a .cu file is parsed once per GPU target (four today) by the device compiler, host code
// included, although no host code is generated there. nlohmann/json.hpp costs about 2 s of that
// parsing per target per unit, a fifth of the suite's compile work. Host code is generated only by
// the host pass, which sees the real library (core/json.hpp picks), so nothing here is ever
// called: members are declared, not defined, and accept what our host code writes. A use this
// stand-in cannot parse is a compile error in the device pass, never a wrong program.
#pragma once
#if !defined(__CUDA_ARCH__)
#error "core/json_device_pass.hpp is for nvcc's device passes only; include core/json.hpp"
#endif
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace nlohmann {

class json;

namespace detail_device_pass {
// What items() yields: a key and a value, also as a structured binding ([key, value]).
struct item {
  const std::string& k;
  json& v;
  const std::string& key() const;
  json& value() const;
};
struct item_range {
  item* begin() const;
  item* end() const;
};
// An iterator over a json: dereferences to a json, and names its key as items() does.
struct iterator {
  json& operator*() const;
  json* operator->() const;
  iterator& operator++();
  iterator operator++(int);
  bool operator==(const iterator&) const;
  bool operator!=(const iterator&) const;
  const std::string& key() const;
  json& value() const;
};
}  // namespace detail_device_pass

class json {
 public:
  enum class value_t : std::uint8_t { null, object, array, string, boolean, number_integer,
                                      number_unsigned, number_float, binary, discarded };
  using iterator = detail_device_pass::iterator;
  using const_iterator = detail_device_pass::iterator;
  using size_type = std::size_t;
  using object_t = std::map<std::string, json>;
  using array_t = std::vector<json>;
  using string_t = std::string;
  using number_float_t = double;
  using number_integer_t = std::int64_t;
  using number_unsigned_t = std::uint64_t;
  using boolean_t = bool;
  struct exception { const char* what() const noexcept; };
  struct parse_error : exception {};
  struct type_error : exception {};
  struct out_of_range : exception {};

  json();
  json(std::nullptr_t);
  json(const json&);
  json(json&&) noexcept;
  json(std::initializer_list<json>);
  template <class T>
  json(const T&);
  ~json();
  json& operator=(const json&);
  json& operator=(json&&) noexcept;
  template <class T>
  json& operator=(const T&);

  static json array(std::initializer_list<json> = {});
  static json object(std::initializer_list<json> = {});
  template <class... A>
  static json parse(A&&...);

  template <class T>
  json& operator[](const T&);
  template <class T>
  const json& operator[](const T&) const;
  template <class T>
  json& at(const T&);
  template <class T>
  const json& at(const T&) const;
  template <class K, class D>
  D value(const K&, const D&) const;
  template <class K>
  std::string value(const K&, const char*) const;
  template <class K>
  bool contains(const K&) const;
  template <class K>
  iterator find(const K&) const;
  template <class K>
  size_type count(const K&) const;
  template <class K>
  size_type erase(const K&);

  template <class T>
  T get() const;
  template <class T>
  void get_to(T&) const;
  template <class T>
  operator T() const;
  template <class T>
  T* get_ptr();
  template <class T>
  const T* get_ptr() const;

  template <class T>
  void push_back(const T&);
  void push_back(std::initializer_list<json>);
  template <class... A>
  json& emplace_back(A&&...);
  template <class... A>
  void emplace(A&&...);
  template <class T>
  json& operator+=(const T&);
  void update(const json&);
  void clear();

  iterator begin() const;
  iterator end() const;
  detail_device_pass::item_range items() const;
  json& front();
  const json& front() const;
  json& back();
  const json& back() const;

  size_type size() const;
  bool empty() const;
  value_t type() const;
  const char* type_name() const;
  bool is_null() const;
  bool is_object() const;
  bool is_array() const;
  bool is_string() const;
  bool is_boolean() const;
  bool is_number() const;
  bool is_number_integer() const;
  bool is_number_unsigned() const;
  bool is_number_float() const;
  bool is_primitive() const;
  bool is_structured() const;
  explicit operator bool() const;
  std::string dump(int = -1, char = ' ', bool = false) const;

  template <class T>
  friend bool operator==(const json&, const T&);
  template <class T>
  friend bool operator!=(const json&, const T&);
  template <class T>
  friend bool operator<(const json&, const T&);
};

using ordered_json = json;

}  // namespace nlohmann
