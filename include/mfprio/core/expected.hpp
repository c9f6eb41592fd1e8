#pragma once
/// \file
/// A small `expected`-style result for readers of input text: either a value or an
/// `input_error` naming the file, line, column and key at fault. C++20 has no
/// std::expected, and readers must not throw on bad input.

#include <cstddef>
#include <string>
#include <utility>
#include <variant>

#include <mfprio/core/assert.hpp>

namespace mfprio {

/// What kind of fault an `input_error` is, for code that treats some differently (the message
/// is for people; code reads this).
enum class error_kind : unsigned char {
    syntax,      ///< text that is not what the format allows
    range,       ///< a well-formed value outside what the system takes
    shape,       ///< a table row whose cells do not match its header row
    limit,       ///< more than mfprio reads (bytes, hosts, nodes): not wrong, too much
    reference,   ///< a name that names nothing (an unknown QOS, partition or account)
    io,          ///< a file that opened but cannot be read as text (a directory, a device, a NUL byte)
    cannot_open, ///< a file that cannot be opened (missing, or not permitted)
};

/// What is wrong with a piece of input text, and where. `line` and `column` are 1-based;
/// 0 means "not applicable" (e.g. a missing column in a table has no column position).
struct input_error {
    std::string file;     ///< file name as given by the caller (or "<string>")
    std::size_t line = 0; ///< 1-based line number, 0 when the whole file is at fault
    std::size_t column = 0;
    std::string key;      ///< the configuration key or table column involved, if any
    std::string message;  ///< a sentence a person understands
    error_kind kind = error_kind::syntax;

    /// "file:line:column: key: message", leaving out the parts that are empty or 0.
    [[nodiscard]] std::string to_string() const {
        std::string out = file.empty() ? std::string("<input>") : file;
        if (line != 0) {
            out += ':' + std::to_string(line);
            if (column != 0) out += ':' + std::to_string(column);
        }
        out += ": ";
        if (!key.empty()) out += key + ": ";
        out += message;
        return out;
    }
};

/// Either a `T` or an `input_error`. Access to the wrong alternative is a contract
/// violation (MFPRIO_ASSERT), never undefined behaviour in debug builds.
template <class T>
class [[nodiscard]] expected {
public:
    expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}              // NOLINT
    expected(input_error error) : v_(std::in_place_index<1>, std::move(error)) {}    // NOLINT

    [[nodiscard]] bool has_value() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return has_value(); }

    [[nodiscard]] T& value() & { MFPRIO_ASSERT(has_value()); return std::get<0>(v_); }
    [[nodiscard]] const T& value() const& { MFPRIO_ASSERT(has_value()); return std::get<0>(v_); }
    [[nodiscard]] T&& value() && { MFPRIO_ASSERT(has_value()); return std::get<0>(std::move(v_)); }
    [[nodiscard]] const input_error& error() const& { MFPRIO_ASSERT(!has_value()); return std::get<1>(v_); }

    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

private:
    std::variant<T, input_error> v_;
};

} // namespace mfprio
