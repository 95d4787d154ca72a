// The safetensors header as the reader and the writer hold it: a key written
// twice (in the header, in an entry, in __metadata__) and nesting deeper than
// the schema are refused at the byte where they occur, whatever the header's
// size; escapes and surrogate pairs decode to the characters they stand for;
// malformed UTF-8, broken JSON and numbers that are no unsigned 64-bit
// integers are refused naming the file and the byte; unknown keys inside an
// entry are passed over as the reference implementation does. The writer
// escapes strings, keeps nlohmann/json's compact form and key order, and
// refuses what JSON cannot hold with CheckpointError. utf8_sequence, which
// both use, tells a byte out of place from a sequence cut short.
#include "model/safetensors.hpp"
#include "support/scratch_folder.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/model/checkpoint.hpp>
#include <topos/model/named.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace topos {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const std::string crafted_origin = "crafted.safetensors";

detail::SafetensorsHeader parse_header(const std::string& header, std::uint64_t payload) {
    return detail::parse_safetensors_header(
        std::as_bytes(std::span<const char>(header.data(), header.size())),
        payload,
        crafted_origin);
}

// The message's ending for a refusal at `offset`.
std::string at_header_byte(std::size_t offset) {
    return ", at byte " + std::to_string(offset) + " of the header";
}

// An entry of one F32 element at [begin, begin + 4).
std::string one_f32_entry(std::uint64_t begin) {
    return R"({"dtype":"F32","shape":[1],"data_offsets":[)" + std::to_string(begin) + "," +
           std::to_string(begin + 4) + "]}";
}

long resident_peak_kib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

TEST(SafetensorsHeader, RefusesATensorNamedTwiceAtTheSecondName) {
    const std::string header = R"({"a":)" + one_f32_entry(0) + R"(,"a":)" + one_f32_entry(4) + "}";
    EXPECT_THAT([&] { (void)parse_header(header, 8); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr(crafted_origin + " is not a valid safetensors file"),
                          HasSubstr("\"a\" appears twice in the header"),
                          HasSubstr(at_header_byte(header.rfind("\"a\""))))));
    // The same name, written once with an escape: the decoded names are compared.
    const std::string escaped =
        R"({"ab":)" + one_f32_entry(0) + R"(,"a\u0062":)" + one_f32_entry(4) + "}";
    EXPECT_THAT(
        [&] { (void)parse_header(escaped, 8); },
        ThrowsMessage<CheckpointError>(AllOf(HasSubstr("\"ab\" appears twice"),
                                             HasSubstr(at_header_byte(escaped.find("\"a\\u"))))));
    const std::string metadata = R"({"__metadata__":{},"__metadata__":{}})";
    EXPECT_THAT([&] { (void)parse_header(metadata, 0); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("\"__metadata__\" appears twice in the header"),
                          HasSubstr(at_header_byte(metadata.rfind("\"__metadata__\""))))));
}

TEST(SafetensorsHeader, RefusesAKeyWrittenTwiceInsideAnEntryAtTheSecondKey) {
    for (const std::string key : {"dtype", "shape", "data_offsets"}) {
        const std::string header = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4],")" +
                                   key + R"(":)" +
                                   (key == "dtype"   ? R"("F32")"
                                    : key == "shape" ? "[1]"
                                                     : "[0,4]") +
                                   "}}";
        EXPECT_THAT([&] { (void)parse_header(header, 4); },
                    ThrowsMessage<CheckpointError>(
                        AllOf(HasSubstr("\"" + key + "\" appears twice inside the entry of \"w\""),
                              HasSubstr(at_header_byte(header.rfind("\"" + key + "\""))))))
            << key;
    }
    const std::string escaped =
        R"({"w":{"dtype":"F32","d\u0074ype":"F64","shape":[1],"data_offsets":[0,4]}})";
    EXPECT_THAT([&] { (void)parse_header(escaped, 4); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("\"dtype\" appears twice inside the entry of \"w\""),
                          HasSubstr(at_header_byte(escaped.find("\"d\\u"))))));
    const std::string metadata = R"({"__metadata__":{"k":"1","k":"2"}})";
    EXPECT_THAT([&] { (void)parse_header(metadata, 0); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("\"k\" appears twice inside the entry of \"__metadata__\""),
                          HasSubstr(at_header_byte(metadata.rfind("\"k\""))))));
}

TEST(SafetensorsHeader, RefusesNestingDeeperThanTheSchemaAtTheByteWhereItHappens) {
    // An unknown key's value may be an array or object of scalars, no deeper.
    const std::string flat =
        R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"note":[1,"x",{"k":null}]}})";
    EXPECT_THAT([&] { (void)parse_header(flat, 4); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("nests deeper than a safetensors header may: an object at "
                                    "depth 4 inside the entry of \"w\""),
                          HasSubstr(at_header_byte(flat.find("{\"k\""))))));
    const std::string arrays =
        R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"note":[[[0]]]}})";
    EXPECT_THAT(
        [&] { (void)parse_header(arrays, 4); },
        ThrowsMessage<CheckpointError>(AllOf(HasSubstr("an array at depth 4"),
                                             HasSubstr(at_header_byte(arrays.find("[[[") + 1)))));
    // The schema's own arrays hold numbers only: a nested one is refused where it opens.
    const std::string shape = R"({"w":{"dtype":"F32","shape":[[1]],"data_offsets":[0,4]}})";
    EXPECT_THAT([&] { (void)parse_header(shape, 4); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("an extent of \"w\" is not a non-negative integer"),
                          HasSubstr(at_header_byte(shape.find("[[") + 1)))));
    const std::string entry = R"({"w":[[[[[[)";
    EXPECT_THAT([&] { (void)parse_header(entry, 0); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("the entry of tensor \"w\" is not an object"),
                          HasSubstr(at_header_byte(5)))));
}

// 100 MB, the largest header a file may declare: refused at the byte where the
// nesting goes wrong, before anything is built (the whole header was once
// parsed into a document first, gigabytes of it).
TEST(SafetensorsHeader, RefusesAHundredMegabytesOfNestingWhereItBegins) {
    std::string brackets(detail::safetensors_header_limit, '[');
    long resident_before = resident_peak_kib();
    EXPECT_THAT([&] { (void)parse_header(brackets, 0); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("its header is not a JSON object: it begins with '['"),
                          HasSubstr(at_header_byte(0)))));
    EXPECT_LT(resident_peak_kib() - resident_before, 16 * 1024);
    brackets.clear();
    brackets.shrink_to_fit();

    std::string objects;
    objects.reserve(detail::safetensors_header_limit);
    while (objects.size() + 5 <= detail::safetensors_header_limit) {
        objects += R"({"a":)";
    }
    resident_before = resident_peak_kib();
    // {"a":{"a":{"a":{ : the header, the entry "a", an unknown key's object,
    // and inside it an object at depth 4, at byte 15.
    EXPECT_THAT([&] { (void)parse_header(objects, 0); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("nests deeper than a safetensors header may: an object at "
                                    "depth 4 inside the entry of \"a\""),
                          HasSubstr(at_header_byte(15)))));
    EXPECT_LT(resident_peak_kib() - resident_before, 16 * 1024);
}

TEST(SafetensorsHeader, ReadsEscapesAndSurrogatePairsAsTheCharactersTheyStandFor) {
    const std::string header =
        "{\"w\\u00e9ight\\ud83d\\ude00 \\\"q\\\" \\\\ \\/ \\b\\f\\n\\r\\t\\u0041\": " +
        one_f32_entry(0) + ",\n \"\xc3\xa9\xf0\x9f\x98\x80\"\t:\r" + one_f32_entry(4) +
        ", \"__metadata__\" : {\"k\\u00e9y\": \"v\\ud800\\udc00\"}}  \n";
    const detail::SafetensorsHeader parsed = parse_header(header, 8);
    ASSERT_EQ(parsed.tensors.size(), 2u);
    EXPECT_TRUE(parsed.tensors.contains("w\xc3\xa9ight\xf0\x9f\x98\x80 \"q\" \\ / \b\f\n\r\tA"));
    EXPECT_TRUE(parsed.tensors.contains("\xc3\xa9\xf0\x9f\x98\x80"));
    EXPECT_EQ(parsed.metadata.at("k\xc3\xa9y"), "v\xf0\x90\x80\x80");
}

// Unknown keys inside an entry are passed over (the reference reader's serde
// struct ignores them); whitespace and key order are free.
TEST(SafetensorsHeader, AcceptsWhatTheSchemaAllowsAndPassesOverUnknownKeys) {
    const std::string header =
        "{ \"w\" : { \"extra\" : [ 1, -2.5e+3, \"x\", true, false, null ], \"none\": [],\n"
        "  \"data_offsets\" : [ 0 , 8 ] , \"more\" : { \"k\" : 0 }, \"e\": {}, \"shape\" : [ 2 ],"
        "  \"dtype\" : \"F32\", \"z\": \"\\u0000\" }, \"s\": {\"dtype\":\"F64\",\"shape\":[],"
        "\"data_offsets\":[8,16]} }";
    const detail::SafetensorsHeader parsed = parse_header(header, 16);
    ASSERT_EQ(parsed.tensors.size(), 2u);
    const detail::TensorEntry& w = parsed.tensors.at("w");
    EXPECT_EQ(w.dtype, "F32");
    EXPECT_EQ(w.shape, (Shape{2}));
    EXPECT_EQ(w.begin, 0u);
    EXPECT_EQ(w.end, 8u);
    EXPECT_EQ(parsed.tensors.at("s").shape, Shape());
}

TEST(SafetensorsHeader, RefusesMalformedUtf8AtItsByte) {
    const struct {
        const char* name;
        std::string key;  // raw bytes of a key, between its quotes
        std::size_t bad;  // the offset of the refused byte within the key
        const char* says;
    } cases[] = {
        {"a stray byte", "ab\xff", 2, "not valid UTF-8: the byte 0xff"},
        {"a continuation byte alone", "\x80", 0, "not valid UTF-8: the byte 0x80"},
        {"an overlong slash", "\xc0\xaf", 0, "not valid UTF-8: the byte 0xc0"},
        {"an overlong three-byte form", "\xe0\x80\xaf", 0, "the byte 0xe0"},
        {"an encoded surrogate", "x\xed\xa0\x80", 1, "the byte 0xed"},
        {"past U+10FFFF", "\xf4\x90\x80\x80", 0, "the byte 0xf4"},
        {"cut short by the quote", "\xe2\x82", 0, "the byte 0xe2"},
        {"a lone high surrogate", "x\\ud800", 1, "not followed by the escape of a low surrogate"},
        {"a high surrogate before a letter",
         "\\ud83d\\u0041",
         0,
         "not followed by the escape of a low surrogate"},
        {"a lone low surrogate", "\\udc00", 0, "a low surrogate comes without the high"},
    };

    for (const auto& c : cases) {
        const std::string header = "{\"" + c.key + "\":" + one_f32_entry(0) + "}";
        EXPECT_THAT([&] { (void)parse_header(header, 4); },
                    ThrowsMessage<CheckpointError>(AllOf(HasSubstr(crafted_origin),
                                                         HasSubstr(c.says),
                                                         HasSubstr(at_header_byte(2 + c.bad)))))
            << c.name;
    }
    // Inside a value too: a dtype, a metadata value, an unknown key's string.
    const std::string value = R"({"__metadata__":{"k":"v)"
                              "\xfe"
                              R"("}})";
    EXPECT_THAT([&] { (void)parse_header(value, 0); },
                ThrowsMessage<CheckpointError>(AllOf(
                    HasSubstr("not valid UTF-8"), HasSubstr(at_header_byte(value.find('\xfe'))))));
    const std::string unknown = R"({"w":{"note":")"
                                "\xc1\x81"
                                R"(","dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
    EXPECT_THAT(
        [&] { (void)parse_header(unknown, 4); },
        ThrowsMessage<CheckpointError>(
            AllOf(HasSubstr("not valid UTF-8"), HasSubstr(at_header_byte(unknown.find('\xc1'))))));
}

TEST(SafetensorsHeader, RefusesNumbersThatAreNoUnsignedSixtyFourBitIntegers) {
    const struct {
        const char* number;  // the end of data_offsets [0, number]
        const char* says;
    } offsets[] = {
        {"18446744073709551616", "the end of \"w\" is not a non-negative integer of 64 bits"},
        {"99999999999999999999999999999999999999999999999999",
         "a number of 50 digits exceeds 18446744073709551615"},
        {"4.0", "the end of \"w\" is not a non-negative integer: it has a fraction"},
        {"4e0", "is not a non-negative integer: it has a fraction or an exponent"},
        {"-4", "the end of \"w\" is not a non-negative integer: it has a minus sign"},
        {"\"4\"", "the end of \"w\" is not a non-negative integer: it begins with '\"'"},
    };

    for (const auto& c : offsets) {
        const std::string header =
            R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,)" + std::string(c.number) + "]}}";
        EXPECT_THAT([&] { (void)parse_header(header, 4); },
                    ThrowsMessage<CheckpointError>(AllOf(
                        HasSubstr(c.says), HasSubstr(at_header_byte(header.find("[0,") + 3)))))
            << c.number;
    }
    const std::string largest =
        R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[18446744073709551615,0]}})";
    EXPECT_THAT([&] { (void)parse_header(largest, 4); },
                ThrowsMessage<CheckpointError>(HasSubstr("tensor \"w\" ends before it begins")));
    const std::string wide = R"({"w":{"dtype":"U8","shape":[4294967296],"data_offsets":[0,4]}})";
    EXPECT_THAT(
        [&] { (void)parse_header(wide, 4); },
        ThrowsMessage<CheckpointError>(AllOf(HasSubstr("an extent of \"w\" is implausibly large"),
                                             HasSubstr(at_header_byte(wide.find("4294967296"))))));
    const std::string zero = R"({"w":{"dtype":"U8","shape":[04],"data_offsets":[0,4]}})";
    EXPECT_THAT(
        [&] { (void)parse_header(zero, 4); },
        ThrowsMessage<CheckpointError>(AllOf(HasSubstr("a number may not begin with 0"),
                                             HasSubstr(at_header_byte(zero.find("04") + 1)))));
}

TEST(SafetensorsHeader, RefusesBrokenJsonNamingTheByte) {
    const struct {
        std::string header;
        std::size_t at;
        const char* says;
    } cases[] = {
        {"", 0, "its header is not a JSON object: it is empty"},
        {"[1, 2]", 0, "it begins with '['"},
        {R"({"w":)" + one_f32_entry(0) + ",}", 54, "expected a key (a string in double quotes)"},
        {R"({"w" )" + one_f32_entry(0) + "}", 5, "expected ':' after a key, found '{'"},
        {R"({"w":)" + one_f32_entry(0) + "} x", 55, "the object ends, and 'x' follows it"},
        {R"({"w":)" + one_f32_entry(0) + std::string("}\0", 2), 54, "the byte 0x00 follows it"},
        {R"({"w":{"dtype":"F32)", 14, "the string that begins here is not closed"},
        {"{\"w\n\":{}}", 3, "the control character 0x0a stands unescaped inside a string"},
        {R"({"w\q":{}})", 4, "a backslash followed by 'q' is no JSON escape"},
        {R"({"w\u12G4":{}})", 7, "a \\u escape needs four hex digits, found 'G'"},
        {R"({"w":{"x":tru}})", 10, "expected a JSON value, found 't'"},
        {R"({"w":{"x":1.}})", 12, "a digit must follow '.'"},
        {R"({"w":{"x":-}})", 11, "a number needs a digit here"},
        {R"({"w":{"dtype":"F32","shape":[1] "data_offsets":[0,4]}})", 32, "expected ',' or '}'"},
    };

    for (const auto& c : cases) {
        EXPECT_THAT([&] { (void)parse_header(c.header, 4); },
                    ThrowsMessage<CheckpointError>(
                        AllOf(HasSubstr(c.says), HasSubstr(at_header_byte(c.at)))))
            << c.header;
    }
}

TEST(SafetensorsHeader, NamesTheByteOfAnEntryThatDoesNotFit) {
    const std::string missing = R"({"w":{"dtype":"F32","shape":[1]}})";
    EXPECT_THAT([&] { (void)parse_header(missing, 4); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("tensor \"w\" needs data_offsets: [begin, end]; its entry has "
                                    "none"),
                          HasSubstr(at_header_byte(missing.size() - 2)))));
    const std::string dtype = R"({"w":{"dtype":"X9","shape":[1],"data_offsets":[0,4]}})";
    EXPECT_THAT(
        [&] { (void)parse_header(dtype, 4); },
        ThrowsMessage<CheckpointError>(AllOf(HasSubstr("needs a dtype safetensors defines"),
                                             HasSubstr(at_header_byte(dtype.find("\"X9"))))));
    const std::string gap = R"({"a":)" + one_f32_entry(0) + R"(,"b":)" + one_f32_entry(8) + "}";
    EXPECT_THAT([&] { (void)parse_header(gap, 12); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("bytes 4..8 of the payload belong to no tensor (a gap before "
                                    "\"b\")"),
                          HasSubstr(at_header_byte(gap.rfind("[8,"))))));
}

std::vector<std::byte> text_bytes(const std::string& text) {
    const auto bytes = std::as_bytes(std::span<const char>(text.data(), text.size()));
    return {bytes.begin(), bytes.end()};
}

// nlohmann/json's dump wrote these headers: compact, keys in byte order at both
// levels, the payload in the order given.
TEST(SafetensorsEncoder, WritesCompactJsonWithKeysInByteOrderAndStringsEscaped) {
    const std::string odd = "b\"\\\n\x01\x7f\xc3\xa9/";
    const std::vector<detail::TensorToWrite> tensors = {
        {odd, "F32", Shape{1}, text_bytes("abcd")},
        {"a", "F64", Shape{}, text_bytes("01234567")},
        {"A", "U8", Shape{2, 0}, {}},
    };
    const std::vector<std::byte> file =
        detail::encode_safetensors(tensors, {{"z", "\t"}, {"format", "topos"}});
    const std::string expected =
        R"({"A":{"data_offsets":[12,12],"dtype":"U8","shape":[2,0]},)"
        R"("__metadata__":{"format":"topos","z":"\t"},)"
        R"("a":{"data_offsets":[4,12],"dtype":"F64","shape":[]},)"
        "\"b\\\"\\\\\\n\\u0001\x7f\xc3\xa9/\":{\"data_offsets\":[0,4],\"dtype\":\"F32\","
        "\"shape\":[1]}}";
    std::uint64_t length = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        length |= std::to_integer<std::uint64_t>(file[i]) << (8 * i);
    }
    ASSERT_EQ(length % 8, 0u);
    ASSERT_EQ(file.size(), 8 + length + 12);
    const std::string header(reinterpret_cast<const char*>(file.data()) + 8, length);
    EXPECT_EQ(header, expected + std::string(length - expected.size(), ' '));
    const detail::SafetensorsFile read = detail::parse_safetensors(file, crafted_origin);
    EXPECT_EQ(read.header.tensors.at(odd).begin, 0u);
    EXPECT_EQ(read.header.metadata.at("z"), "\t");
}

TEST(SafetensorsEncoder, RefusesWhatAHeaderCannotHoldWithCheckpointError) {
    const auto tensor = [](std::string name) {
        return detail::TensorToWrite{std::move(name), "U8", Shape{1}, text_bytes("x")};
    };
    EXPECT_THAT([&] { (void)detail::encode_safetensors({tensor("w\xff")}, {}); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("the tensor name \"w\\xff\" is not well-formed UTF-8"),
                          HasSubstr("byte 1 of it, 0xff"))));
    EXPECT_THAT(
        [&] {
            (void)detail::encode_safetensors({tensor("w")}, {{"k", "\xed\xa0\x80"}});
        },
        ThrowsMessage<CheckpointError>(HasSubstr("the metadata value of \"k\"")));
    EXPECT_THAT(
        [&] {
            (void)detail::encode_safetensors({tensor("w")}, {{"\xc0\xaf", "v"}});
        },
        ThrowsMessage<CheckpointError>(HasSubstr("the metadata key")));
    EXPECT_THAT(
        [&] {
            (void)detail::encode_safetensors({tensor("w"), tensor("w")}, {});
        },
        ThrowsMessage<CheckpointError>(HasSubstr("\"w\" is given twice")));
    EXPECT_THAT([&] { (void)detail::encode_safetensors({tensor("__metadata__")}, {}); },
                ThrowsMessage<CheckpointError>(HasSubstr("may not be named __metadata__")));
}

TEST(SafetensorsEncoder, ASaveUnderANameThatIsNotUtf8ThrowsCheckpointError) {
    Tape<float> tape;
    const Value<float> w = tape.parameter(Tensor<float>::filled(Shape{2}, 1.0f));
    (void)(w * w).sum();
    const Network<float> network = std::move(tape).into_network();
    const test::ScratchFolder folder("not_utf8");
    EXPECT_THAT(
        [&] {
            checkpoint::save(folder / "w.safetensors",
                             network.parameters(),
                             {NamedParameter{.name = "w\xc3", .symbol = w.symbol()}});
        },
        ThrowsMessage<CheckpointError>(HasSubstr("UTF-8")));
    EXPECT_FALSE(std::filesystem::exists(folder / "w.safetensors"));
}

// Each case: the bytes, then the length of the character they begin (0 for
// none) and, for none, the offset of the first byte out of place.
TEST(Utf8Sequence, TellsAByteOutOfPlaceFromASequenceCutShort) {
    struct Case {
        std::string bytes;
        std::size_t length;
        std::size_t fault;
    };

    const std::vector<Case> cases{
        {"a", 1, 0},
        {"\xc3\xa9", 2, 0},
        {"\xe2\x82\xac!", 3, 0},
        {"\xf0\x9f\x98\x80", 4, 0},
        {"\x80", 0, 0},              // a stray continuation byte
        {"\xc0\xaf", 0, 0},          // 0xc0 begins only overlong forms
        {"\xff", 0, 0},              // never in UTF-8
        {"\xe0\x80\x80", 0, 1},      // overlong: the second byte is out of place
        {"\xed\xa0\x80", 0, 1},      // a surrogate
        {"\xf4\x90\x80\x80", 0, 1},  // past U+10FFFF
        {"\xe2\x82x", 0, 2},         // the third byte continues nothing
        {"\xe2x", 0, 1},             // out of place before the end: not cut short
        {"\xe2\x82", 0, 2},          // cut short: the fault is the end
        {"\xf0\x9f\x98", 0, 3},
    };
    for (const Case& each : cases) {
        const detail::Utf8Sequence sequence = detail::utf8_sequence(each.bytes);
        EXPECT_EQ(sequence.length, each.length) << ::testing::PrintToString(each.bytes);
        if (each.length == 0) {
            EXPECT_EQ(sequence.fault, each.fault) << ::testing::PrintToString(each.bytes);
        }
    }
}

}  // namespace
}  // namespace topos
