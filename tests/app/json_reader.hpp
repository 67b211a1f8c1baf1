// A minimal JSON reader for tests that check the program's --json output: objects (keys kept in
// order), arrays, strings without escapes other than \" and \\, numbers, true/false/null. Throws
// std::runtime_error on anything else, so a malformed output fails the test.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tilegen::test {

struct Json {
    enum Kind { null, boolean, number, string, array, object } kind = null;
    bool b = false;
    double num = 0;
    std::string str;
    std::vector<Json> items;                         // array elements
    std::vector<std::pair<std::string, Json>> pairs; // object members, in order

    const Json& operator[](const std::string& key) const {
        for (const auto& [k, v] : pairs)
            if (k == key) return v;
        throw std::runtime_error("no key '" + key + "'");
    }
    const Json& operator[](std::size_t i) const { return items.at(i); }
    bool has(const std::string& key) const {
        for (const auto& [k, v] : pairs)
            if (k == key) return true;
        return false;
    }
    std::vector<std::string> keys() const {
        std::vector<std::string> out;
        for (const auto& [k, v] : pairs)
            out.push_back(k);
        return out;
    }
};

class JsonReader {
  public:
    static Json parse(const std::string& text) {
        JsonReader r(text);
        Json v = r.value();
        r.skip();
        if (r.at_ != text.size()) throw std::runtime_error("trailing text after JSON");
        return v;
    }

  private:
    explicit JsonReader(const std::string& text) : s_(text) {}
    void skip() {
        while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_])))
            ++at_;
    }
    char peek() {
        skip();
        if (at_ >= s_.size()) throw std::runtime_error("unexpected end of JSON");
        return s_[at_];
    }
    void expect(char c) {
        if (peek() != c) throw std::runtime_error(std::string("expected '") + c + "'");
        ++at_;
    }
    std::string text() {
        expect('"');
        std::string out;
        while (at_ < s_.size() && s_[at_] != '"') {
            if (s_[at_] == '\\') ++at_;
            if (at_ < s_.size()) out += s_[at_++];
        }
        expect('"');
        return out;
    }
    bool word(const char* w) {
        const std::string x(w);
        if (s_.compare(at_, x.size(), x) != 0) return false;
        at_ += x.size();
        return true;
    }
    Json value() {
        Json v;
        const char c = peek();
        if (c == '{') {
            v.kind = Json::object;
            ++at_;
            if (peek() == '}') return ++at_, v;
            for (;;) {
                std::string k = text();
                expect(':');
                v.pairs.emplace_back(std::move(k), value());
                if (peek() == ',') {
                    ++at_;
                    continue;
                }
                expect('}');
                return v;
            }
        }
        if (c == '[') {
            v.kind = Json::array;
            ++at_;
            if (peek() == ']') return ++at_, v;
            for (;;) {
                v.items.push_back(value());
                if (peek() == ',') {
                    ++at_;
                    continue;
                }
                expect(']');
                return v;
            }
        }
        if (c == '"') {
            v.kind = Json::string;
            v.str = text();
            return v;
        }
        if (word("true") || word("false")) {
            v.kind = Json::boolean;
            v.b = s_[at_ - 1] == 'e' && s_[at_ - 2] == 'u';
            return v;
        }
        if (word("null")) return v;
        const char* begin = s_.c_str() + at_;
        char* end = nullptr;
        v.num = std::strtod(begin, &end);
        if (end == begin) throw std::runtime_error("bad JSON value at " + std::to_string(at_));
        at_ += static_cast<std::size_t>(end - begin);
        v.kind = Json::number;
        return v;
    }
    const std::string& s_;
    std::size_t at_ = 0;
};

} // namespace tilegen::test
