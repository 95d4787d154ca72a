// data::read_npy and data::write_npy: files numpy.save wrote (their bytes
// copied into this file once from NumPy 1.24's output, so that no test needs
// Python), every element type and order read_npy reads, round trips of float,
// double and bf16, write_npy's bytes against numpy.save's, and every malformed
// file refused with an NpyError naming it.
#include <topos/core/error.hpp>
#include <topos/data/npy.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

// Apart from the other data tests' helpers, which a unity build merges with these.
namespace topos::data::npy_testing {
namespace {

namespace fs = std::filesystem;

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

fs::path temporary(const std::string& name) {
    return fs::path(::testing::TempDir()) /
           ("topos_npy_" + std::to_string(getpid()) + '_' + name + ".npy");
}

fs::path written(const std::string& name, const std::string& bytes) {
    const fs::path path = temporary(name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

std::string contents(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// Bytes given as numbers, so that no hex escape runs into the next character.
std::string raw(std::initializer_list<int> bytes) {
    std::string text;
    for (const int byte : bytes) {
        text.push_back(static_cast<char>(byte));
    }
    return text;
}

// A version 1.0 file of the header `dict` (as numpy writes it) and `data`,
// padded as numpy pads it to a multiple of 64 bytes.
std::string npy_file(const std::string& dict, const std::string& data) {
    std::string header = dict;
    header.append(63 - (10 + header.size()) % 64, ' ').push_back('\n');
    return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() & 0xff) +
           static_cast<char>(header.size() >> 8) + header + data;
}

std::string dict_of(const std::string& descr, const std::string& shape, bool fortran = false) {
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
           ", 'shape': " + shape + ", }";
}

template <Element T>
Tensor<T> read_bytes(const std::string& bytes) {
    const fs::path path = written("read", bytes);
    Tensor<T> tensor;
    try {
        tensor = read_npy<T>(path);
    } catch (...) {
        fs::remove(path);
        throw;
    }
    fs::remove(path);
    return tensor;
}

// The message read_npy<T> throws for a file of `bytes`, which must name the
// file, or "" when it reads it.
template <Element T = float>
std::string refusal_of(const std::string& bytes) {
    const fs::path path = written("refused", bytes);
    std::string message;
    try {
        (void)read_npy<T>(path);
    } catch (const NpyError& error) {
        message = error.what();
        EXPECT_THAT(message, HasSubstr("cannot read " + path.string() + ": "));
    }
    fs::remove(path);
    return message;
}

// numpy.save("f4.npy", numpy.array([1.5, -2, 3.25], dtype="<f4")), byte for byte.
const std::string numpy_float32 =
    std::string("\x93NUMPY\x01\x00v\x00", 10) +
    "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }" + std::string(60, ' ') + "\n" +
    raw({0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x50, 0x40});

// numpy.save("scalar.npy", numpy.array(2.5)).
const std::string numpy_scalar = std::string("\x93NUMPY\x01\x00v\x00", 10) +
                                 "{'descr': '<f8', 'fortran_order': False, 'shape': (), }" +
                                 std::string(62, ' ') + "\n" +
                                 raw({0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x40});

// numpy.lib.format.write_array(f, numpy.array([1, -2], dtype="<i2"), version=(2, 0)).
const std::string numpy_version_2 = std::string("\x93NUMPY\x02\x00t\x00\x00\x00", 12) +
                                    "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }" +
                                    std::string(58, ' ') + "\n" + raw({0x01, 0x00, 0xfe, 0xff});

// The same with numpy.array([[1, 2]], dtype="|u1") and version=(3, 0).
const std::string numpy_version_3 = std::string("\x93NUMPY\x03\x00t\x00\x00\x00", 12) +
                                    "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2), }" +
                                    std::string(56, ' ') + "\n" + raw({0x01, 0x02});

TEST(ReadNpy, ReadsFilesNumpySaveWrote) {
    EXPECT_TRUE(
        read_bytes<float>(numpy_float32).bit_equal(Tensor<float>(Shape{3}, {1.5F, -2, 3.25F})));
    const Tensor<double> scalar = read_bytes<double>(numpy_scalar);
    EXPECT_EQ(scalar.shape(), Shape{});
    EXPECT_EQ(scalar.item(), 2.5);
    EXPECT_EQ(read_bytes<double>(numpy_version_2), (Tensor<double>(Shape{2}, {1, -2})));
    EXPECT_EQ(read_bytes<float>(numpy_version_3), (Tensor<float>(Shape{1, 2}, {1, 2})));
}

TEST(ReadNpy, ReadsTheHelperFileAsNumpysOwn) {
    EXPECT_EQ(npy_file(dict_of("<f4", "(3,)"), numpy_float32.substr(128)).size(), 128U + 12);
    EXPECT_EQ(read_bytes<float>(npy_file(dict_of("<f4", "(3,)"), numpy_float32.substr(128))),
              read_bytes<float>(numpy_float32));
}

TEST(ReadNpy, ReadsFloatsOfEitherByteOrder) {
    // numpy.array([[0.1, -0.0], [1e300, 7]], dtype=">f8")
    const std::string big_doubles =
        npy_file(dict_of(">f8", "(2, 2)"),
                 raw({0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a, 0x80, 0x00, 0x00,
                      0x00, 0x00, 0x00, 0x00, 0x00, 0x7e, 0x37, 0xe4, 0x3c, 0x88, 0x00,
                      0x75, 0x9c, 0x40, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}));
    const Tensor<double> doubles = read_bytes<double>(big_doubles);
    EXPECT_TRUE(doubles.bit_equal(Tensor<double>(Shape{2, 2}, {0.1, -0.0, 1e300, 7})));
    // numpy.array([1.5, -2], dtype=">f4")
    const std::string big_floats =
        npy_file(dict_of(">f4", "(2,)"), raw({0x3f, 0xc0, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00}));
    EXPECT_EQ(read_bytes<float>(big_floats), (Tensor<float>(Shape{2}, {1.5F, -2})));
    EXPECT_EQ(read_bytes<double>(big_floats), (Tensor<double>(Shape{2}, {1.5, -2})));
}

TEST(ReadNpy, ReadsFloat16Exactly) {
    // numpy.array([1.5, -65504, 2**-24, inf], dtype="<f2")
    const std::string halves =
        npy_file(dict_of("<f2", "(4,)"), raw({0x00, 0x3e, 0xff, 0xfb, 0x01, 0x00, 0x00, 0x7c}));
    const float infinity = std::numeric_limits<float>::infinity();
    EXPECT_EQ(read_bytes<float>(halves),
              (Tensor<float>(Shape{4}, {1.5F, -65504, std::ldexp(1.0F, -24), infinity})));
    EXPECT_EQ(read_bytes<double>(halves),
              (Tensor<double>(Shape{4}, {1.5, -65504, std::ldexp(1.0, -24), infinity})));
    // A NaN stays a NaN; a subnormal with its sign.
    const Tensor<float> odd =
        read_bytes<float>(npy_file(dict_of("<f2", "(2,)"), raw({0x00, 0x7e, 0x03, 0x80})));
    EXPECT_TRUE(std::isnan(odd.data()[0]));
    EXPECT_EQ(odd.data()[1], -std::ldexp(3.0F, -24));
}

TEST(ReadNpy, ReadsIntegersAndBoolsExactly) {
    // numpy.array([-7, 2**24 + 1], dtype="<i4")
    const std::string int32 =
        npy_file(dict_of("<i4", "(2,)"), raw({0xf9, 0xff, 0xff, 0xff, 0x01, 0x00, 0x00, 0x01}));
    EXPECT_EQ(read_bytes<double>(int32), (Tensor<double>(Shape{2}, {-7, 16777217})));
    // numpy.array([-32768, 32767], dtype="<i2")
    EXPECT_EQ(read_bytes<float>(npy_file(dict_of("<i2", "(2,)"), raw({0x00, 0x80, 0xff, 0x7f}))),
              (Tensor<float>(Shape{2}, {-32768, 32767})));
    // numpy.array([0, 255], dtype="|u1") and numpy.array([True, False, True])
    EXPECT_EQ(read_bytes<bf16>(npy_file(dict_of("|u1", "(2,)"), raw({0x00, 0xff}))),
              (Tensor<bf16>(Shape{2}, {bf16(0.0F), bf16(255.0F)})));
    EXPECT_EQ(read_bytes<float>(npy_file(dict_of("|b1", "(3,)"), raw({0x01, 0x00, 0x01}))),
              (Tensor<float>(Shape{3}, {1, 0, 1})));
    // Big-endian, one byte and eight-byte integers, signed and unsigned.
    EXPECT_EQ(read_bytes<double>(npy_file(dict_of(">i4", "(1,)"), raw({0xff, 0xff, 0xff, 0xf9}))),
              (Tensor<double>(Shape{1}, {-7})));
    EXPECT_EQ(read_bytes<double>(npy_file(dict_of("|i1", "(2,)"), raw({0x80, 0x7f}))),
              (Tensor<double>(Shape{2}, {-128, 127})));
    EXPECT_EQ(read_bytes<double>(npy_file(dict_of("<u8", "(1,)"),
                                          raw({0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80}))),
              (Tensor<double>(Shape{1}, {0x1p63})));
    EXPECT_EQ(read_bytes<double>(npy_file(dict_of("<i8", "(1,)"),
                                          raw({0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80}))),
              (Tensor<double>(Shape{1}, {-0x1p63})));
}

TEST(ReadNpy, RefusesAnIntegerTheTypeDoesNotHoldExactly) {
    const std::string int32 =
        npy_file(dict_of("<i4", "(2,)"), raw({0xf9, 0xff, 0xff, 0xff, 0x01, 0x00, 0x00, 0x01}));
    EXPECT_THAT(refusal_of<float>(int32),
                HasSubstr("the element at [1] is 16777217, which float does not hold exactly"));
    // numpy.array([2**53 + 1], dtype="<i8")
    EXPECT_THAT(refusal_of<double>(npy_file(dict_of("<i8", "(1,)"),
                                            raw({0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00}))),
                HasSubstr("is 9007199254740993, which double does not hold exactly"));
    // 257 and -257 in bf16; 256 and 2**24 (trailing zeros) are exact.
    EXPECT_THAT(refusal_of<bf16>(npy_file(dict_of("<i2", "(2, 2)"),
                                          raw({0x00, 0x01, 0x00, 0x40, 0x00, 0x00, 0xff, 0xfe}))),
                HasSubstr("the element at [1, 1] is -257, which bf16 does not hold exactly"));
    EXPECT_EQ(read_bytes<bf16>(npy_file(dict_of("<i4", "(2,)"),
                                        raw({0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01}))),
              (Tensor<bf16>(Shape{2}, {bf16(256.0F), bf16(16777216.0F)})));
}

TEST(ReadNpy, RefusesAFiniteFloatBeyondTheTypesRange) {
    const std::string huge = npy_file(dict_of("<f8", "(2,)"),
                                      raw({0x00,
                                           0x00,
                                           0x00,
                                           0x00,
                                           0x00,
                                           0x00,
                                           0xf0,
                                           0x7f,
                                           0x9c,
                                           0x75,
                                           0x00,
                                           0x88,
                                           0x3c,
                                           0xe4,
                                           0x37,
                                           0x7e}));
    EXPECT_THAT(refusal_of<float>(huge),
                HasSubstr("the element at [1] is 1e+300, out of range for float"));
    EXPECT_THAT(refusal_of<bf16>(huge), HasSubstr("is 1e+300, out of range for bf16"));
    EXPECT_EQ(read_bytes<double>(huge).data()[1], 1e300);
    EXPECT_TRUE(std::isinf(read_bytes<double>(huge).data()[0]));
}

TEST(ReadNpy, PutsAFortranOrderedArrayInRowMajorOrder) {
    // numpy.array([[1, 2, 3], [4, 5, 6]], dtype="<i8", order="F")
    std::string columns;
    for (const int value : {1, 4, 2, 5, 3, 6}) {
        columns += raw({value, 0, 0, 0, 0, 0, 0, 0});
    }
    EXPECT_EQ(read_bytes<double>(npy_file(dict_of("<i8", "(2, 3)", true), columns)),
              (Tensor<double>(Shape{2, 3}, {1, 2, 3, 4, 5, 6})));
    // Rank 3: the first index varies fastest in the file.
    std::string rank_three;
    for (int k = 0; k < 4; ++k) {
        for (int j = 0; j < 3; ++j) {
            for (int i = 0; i < 2; ++i) {
                rank_three += raw({i * 12 + j * 4 + k});
            }
        }
    }
    const Tensor<float> read =
        read_bytes<float>(npy_file(dict_of("|u1", "(2, 3, 4)", true), rank_three));
    EXPECT_EQ(read.shape(), (Shape{2, 3, 4}));
    for (std::size_t i = 0; i < 24; ++i) {
        EXPECT_EQ(read.data()[i], static_cast<float>(i));
    }
    EXPECT_THAT(refusal_of<float>(npy_file(dict_of("<i4", "(1, 2)", true),
                                           raw({0, 0, 0, 0, 0x01, 0x00, 0x00, 0x01}))),
                HasSubstr("the element at [0, 1] is 16777217"));
}

TEST(ReadNpy, ReadsEmptyArraysAndHeadersSpacedAsPythonAllows) {
    EXPECT_EQ(read_bytes<float>(npy_file(dict_of("<f4", "(0, 3)"), "")).shape(), (Shape{0, 3}));
    const std::string spaced =
        npy_file("{\"shape\":(2L,1,),\n 'fortran_order' :False,'descr':'<f4'}",
                 raw({0, 0, 0x80, 0x3f, 0, 0, 0, 0x40}));
    EXPECT_EQ(read_bytes<float>(spaced), (Tensor<float>(Shape{2, 1}, {1, 2})));
    const Tensor<float> deepest = read_bytes<float>(
        npy_file(dict_of("<f4", "(1, 1, 1, 1, 1, 1, 1, 1)"), raw({0, 0, 0x80, 0x3f})));
    EXPECT_EQ(deepest.shape().rank(), 8U);
}

TEST(ReadNpy, RefusesWhatIsNotANpyFile) {
    EXPECT_THAT(refusal_of(""), HasSubstr("it is empty, not a .npy file"));
    EXPECT_THAT(refusal_of("PK\x03\x04 a zip archive"),
                HasSubstr("it is not a .npy file: it does not begin with \"\\x93NUMPY\""));
    EXPECT_THAT(refusal_of("\x93NUM"), HasSubstr("it ends within its first 10 bytes"));
    EXPECT_THAT(refusal_of(std::string("\x93NUMPY\x01\x00v", 9)),
                HasSubstr("it ends within its first 10 bytes"));
    EXPECT_THAT(refusal_of(std::string("\x93NUMPY\x02\x00t\x00", 10)),
                HasSubstr("it ends within its first 12 bytes"));
    EXPECT_THAT(refusal_of(std::string("\x93NUMPY\x04\x00v\x00", 10) + std::string(118, ' ')),
                HasSubstr("it is in format version 4.0, where read_npy reads versions 1.0, 2.0 "
                          "and 3.0"));
    EXPECT_THAT(refusal_of(std::string("\x93NUMPY\x01\x01v\x00", 10)),
                HasSubstr("format version 1.1"));
}

TEST(ReadNpy, RefusesAHeaderCutShort) {
    const std::string whole = npy_file(dict_of("<f4", "(3,)"), "");
    EXPECT_THAT(refusal_of(whole.substr(0, 60)),
                HasSubstr("its header is cut short: it says it is 118 bytes long, but the file "
                          "ends 50 bytes into it"));
    EXPECT_THAT(refusal_of(std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14)),
                HasSubstr("its header is cut short: it says it is 4294967295 bytes long"));
}

TEST(ReadNpy, RefusesAHeaderThatIsNotNumpysDict) {
    const std::string data = raw({0, 0, 0x80, 0x3f});
    const std::string not_dict = "its header is not the dict numpy.save writes: ";
    EXPECT_THAT(refusal_of(npy_file("[1, 2]", data)),
                AllOf(HasSubstr(not_dict), HasSubstr("no the dict's opening '{' at byte 0")));
    EXPECT_THAT(refusal_of(npy_file("{'descr': '<f4', 'shape': (1,)}", data)),
                HasSubstr("the dict has no 'fortran_order'"));
    EXPECT_THAT(refusal_of(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
                                    "'extra': 1}",
                                    data)),
                HasSubstr("an unknown key 'extra'"));
    EXPECT_THAT(refusal_of(npy_file("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
                                    "'shape': (1,)}",
                                    data)),
                HasSubstr("the key 'descr' a second time at byte 17"));
    EXPECT_THAT(refusal_of(npy_file(dict_of("<f4", "(1)"), data)),
                HasSubstr("a shape that is not a tuple"));
    EXPECT_THAT(refusal_of(npy_file(dict_of("<f4", "[1]"), data)),
                HasSubstr("a 'shape' that is not a tuple of integers"));
    EXPECT_THAT(refusal_of(npy_file(dict_of("<f4", "(-1,)"), data)),
                HasSubstr("a negative extent"));
    EXPECT_THAT(refusal_of(npy_file(dict_of("<f4", "(1.5,)"), data)),
                HasSubstr("no ',' or ')' after an extent of the shape"));
    EXPECT_THAT(
        refusal_of(npy_file("{'descr': '<f4', 'fortran_order': 'no', 'shape': (1,)}", data)),
        HasSubstr("a 'fortran_order' that is neither True nor False"));
    EXPECT_THAT(refusal_of(npy_file("{'descr': '<f4' 'fortran_order': False}", data)),
                HasSubstr("no ',' or the dict's closing '}'"));
    EXPECT_THAT(refusal_of(npy_file("{'descr: 1", data)),
                HasSubstr("a string that is never closed at byte 1"));
    EXPECT_THAT(refusal_of(npy_file(dict_of("<f4", "(1,)") + " x", data)),
                HasSubstr("bytes after the dict's closing '}'"));
    EXPECT_THAT(refusal_of(npy_file("{'descr': <f4}", data)),
                HasSubstr("a value that is not a string, True, False or a tuple"));
}

TEST(ReadNpy, RefusesShapesBeyondTheLimitsOfAShape) {
    EXPECT_THAT(refusal_of(npy_file(dict_of("<f4", "(1, 1, 1, 1, 1, 1, 1, 1, 1)"), "")),
                HasSubstr("a shape of rank 9, above the 8 axes a topos Shape holds"));
    EXPECT_THAT(refusal_of(npy_file(dict_of("<f4", "(1099511627776, 1099511627776)"), "")),
                HasSubstr("a shape of more than Shape::max_elements"));
    EXPECT_THAT(refusal_of(npy_file(dict_of("<f4", "(99999999999999999999999,)"), "")),
                HasSubstr("an extent above Shape::max_elements"));
}

TEST(ReadNpy, NamesAnElementTypeItDoesNotRead) {
    const std::string reads = "read_npy reads float16, float32 and float64";
    EXPECT_THAT(refusal_of(npy_file(dict_of("<c8", "(1,)"), std::string(8, '\0'))),
                AllOf(HasSubstr("its elements are '<c8', complex numbers"), HasSubstr(reads)));
    EXPECT_THAT(refusal_of(npy_file(dict_of("|O", "(1,)"), "")),
                HasSubstr("its elements are '|O', Python objects"));
    EXPECT_THAT(refusal_of(npy_file(dict_of("<U3", "(1,)"), "")),
                HasSubstr("its elements are '<U3', strings"));
    EXPECT_THAT(refusal_of(npy_file(dict_of("<f16", "(1,)"), "")),
                HasSubstr("its elements are '<f16'"));
    EXPECT_THAT(refusal_of(npy_file("{'descr': [('a', '<f4')], 'fortran_order': False, "
                                    "'shape': (1,)}",
                                    "")),
                HasSubstr("its elements are a structured array"));
    EXPECT_THAT(refusal_of(npy_file(dict_of("|f4", "(1,)"), std::string(4, '\0'))),
                HasSubstr("'|f4', without a byte order"));
}

TEST(ReadNpy, RefusesDataShorterOrLongerThanTheShape) {
    EXPECT_THAT(refusal_of(npy_file(dict_of("<f8", "(2, 3)"), std::string(40, '\0'))),
                HasSubstr("its shape [2, 3] of '<f8' needs 48 bytes of data, but the file holds "
                          "only 40 after its header (it is cut short)"));
    EXPECT_THAT(refusal_of(npy_file(dict_of("<f4", "()"), std::string(6, '\0'))),
                HasSubstr("needs 4 bytes of data, but the file holds 2 bytes more after them"));
}

TEST(ReadNpy, OpensOnlyRegularFiles) {
    const fs::path folder = temporary("folder");
    fs::create_directory(folder);
    EXPECT_THAT([&] { (void)read_npy<float>(folder); },
                ThrowsMessage<NpyError>(HasSubstr(folder.string() + ": it is a directory")));
    fs::remove(folder);
    const fs::path fifo = temporary("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_THAT([&] { (void)read_npy<float>(fifo); },
                ThrowsMessage<NpyError>(HasSubstr("it is a FIFO")));
    fs::remove(fifo);
    EXPECT_THAT([] { (void)read_npy<float>("/nonexistent/topos.npy"); },
                ThrowsMessage<NpyError>(HasSubstr("cannot read /nonexistent/topos.npy: No such")));
}

template <Element T>
void expect_round_trip(const Tensor<T>& tensor) {
    const fs::path path = temporary("round_trip");
    write_npy(path, tensor);
    const Tensor<T> read = read_npy<T>(path);
    EXPECT_TRUE(read.bit_equal(tensor)) << read << " from " << tensor;
    fs::remove(path);
}

template <Element T>
void expect_round_trips() {
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const T infinity = std::numeric_limits<T>::infinity();
    expect_round_trip(Tensor<T>(T(2.5F)));
    expect_round_trip(Tensor<T>::filled(Shape{0, 3}, T(1.0F)));
    expect_round_trip(
        Tensor<T>(Shape{2, 3}, {T(1.0F), T(-0.0F), T(0.1F), nan, infinity, -infinity}));
    expect_round_trip(Tensor<T>::filled(Shape{1, 2, 1, 2, 1, 1, 2, 1}, T(-3.0F)));
    expect_round_trip(Tensor<T>::filled(Shape{40000}, std::numeric_limits<T>::denorm_min()));
}

TEST(WriteNpy, RoundTripsEveryElementType) {
    expect_round_trips<float>();
    expect_round_trips<double>();
    expect_round_trips<bf16>();
}

TEST(WriteNpy, WritesWhatNumpySaveWrites) {
    const fs::path path = temporary("written");
    write_npy(path, Tensor<float>(Shape{3}, {1.5F, -2, 3.25F}));
    EXPECT_EQ(contents(path), numpy_float32);
    write_npy(path, Tensor<bf16>(Shape{3}, {bf16(1.5F), bf16(-2.0F), bf16(3.25F)}));
    EXPECT_EQ(contents(path), numpy_float32);
    write_npy(path, Tensor<double>(2.5));
    EXPECT_EQ(contents(path), numpy_scalar);
    // numpy.save(f, numpy.array([[1, 2, 3], [4, 5, 6]], dtype="<f4")): room
    // for the first extent to grow.
    write_npy(path, Tensor<float>(Shape{2, 3}, {1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(contents(path).substr(0, 128),
              std::string("\x93NUMPY\x01\x00v\x00", 10) +
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                  std::string(58, ' ') + "\n");
    fs::remove(path);
}

TEST(WriteNpy, ReplacesAFileAndALinksTargetAndRefusesAnythingElse) {
    const fs::path target = temporary("target");
    const fs::path link = temporary("link");
    std::ofstream(target) << "old";
    fs::create_symlink(target, link);
    write_npy(link, Tensor<float>(Shape{3}, {1.5F, -2, 3.25F}));
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(contents(target), numpy_float32);
    fs::remove(target);
    EXPECT_THAT(
        [&] { write_npy(link, Tensor<float>(1.0F)); },
        ThrowsMessage<NpyError>(HasSubstr(link.string() + ": it is a symbolic link to nothing")));
    fs::remove(link);
    const fs::path folder = temporary("write_folder");
    fs::create_directory(folder);
    EXPECT_THAT([&] { write_npy(folder, Tensor<float>(1.0F)); },
                ThrowsMessage<NpyError>(
                    HasSubstr("cannot write " + folder.string() + ": it is a directory")));
    EXPECT_THAT([&] { write_npy(folder / "missing" / "x.npy", Tensor<float>(1.0F)); },
                ThrowsMessage<NpyError>(HasSubstr("No such file or directory")));
    EXPECT_TRUE(fs::is_empty(folder));
    fs::remove(folder);
}

}  // namespace
}  // namespace topos::data::npy_testing
