// data::read_npy and data::write_npy: NumPy's .npy files. A read opens only a
// regular file, checks the magic string, the version and the header's length
// against the file's size, reads the header's dict (data/npy_header.hpp), checks
// the data's length against the shape before allocating, then decodes the
// elements chunk by chunk into T. A write streams numpy.save's bytes into a
// temporary file beside the target and renames it over the target.
#include "core/float_text.hpp"
#include "core/regular_file.hpp"
#include "data/npy_header.hpp"
#include <topos/core/error.hpp>
#include <topos/data/npy.hpp>

#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <system_error>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace topos::data {
// Named apart from the other sources' helpers, which a unity build merges with these.
namespace npy_file {
namespace {

namespace fs = std::filesystem;

// The bytes read or written at a time (a multiple of every element's size).
constexpr std::size_t chunk_bytes = std::size_t{64} << 10;

// The longest header read: far more than any array read_npy reads needs.
constexpr std::uint64_t longest_header = std::uint64_t{1} << 20;

// The smallest double that rounds to float infinity: FLT_MAX and half its ulp.
constexpr double float_overflow = 0x1.ffffffp127;

// The value whose bits are `bits` (To and From of one size).
template <class To, class From>
To bits_as(From bits) {
    static_assert(sizeof(To) == sizeof(From));
    To value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// The shortest decimal that reads back as `value`: "1e+300".
std::string decimal(double value) {
    char digits[32];
    const auto result = topos::detail::to_chars(digits, digits + sizeof digits, value);
    return std::string(digits, result.ptr);
}

std::string reason(int error) {
    return std::error_code(error, std::generic_category()).message();
}

template <Element T>
constexpr const char* name_of() {
    if constexpr (std::is_same_v<T, float>) {
        return "float";
    } else if constexpr (std::is_same_v<T, double>) {
        return "double";
    } else {
        return "bf16";
    }
}

// Reads up to `count` bytes into `into`, fewer only at the file's end.
std::size_t read_up_to(int descriptor, char* into, std::size_t count, const std::string& origin) {
    std::size_t done = 0;
    while (done < count) {
        const ssize_t got = ::read(descriptor, into + done, count - done);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            throw NpyError("cannot read " + origin + ": " + reason(errno));
        }
        if (got == 0) {
            break;
        }
        done += static_cast<std::size_t>(got);
    }
    return done;
}

// The unsigned integer `bytes` bytes long at `from`, in the byte order given.
std::uint64_t load_bits(const unsigned char* from, std::size_t bytes, bool big_endian) {
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < bytes; ++i) {
        const std::size_t shift = 8 * (big_endian ? bytes - 1 - i : i);
        bits |= static_cast<std::uint64_t>(from[i]) << shift;
    }
    return bits;
}

// An IEEE binary16 number as a float (exact: every float16 is a float).
float half_to_float(std::uint64_t half) {
    const auto sign = static_cast<std::uint32_t>(half >> 15U) << 31U;
    const auto exponent = static_cast<std::uint32_t>((half >> 10U) & 0x1fU);
    const auto fraction = static_cast<std::uint32_t>(half & 0x3ffU);
    if (exponent == 0) {
        const float magnitude = std::ldexp(static_cast<float>(fraction), -24);
        return sign != 0 ? -magnitude : magnitude;
    }
    const std::uint32_t widened_exponent = exponent == 0x1f ? 0xffU : exponent - 15 + 127;
    return bits_as<float>(sign | (widened_exponent << 23U) | (fraction << 13U));
}

// Whether T holds the integer of magnitude `magnitude` exactly: whether its
// significant bits, trailing zeros aside, fit T's significand.
template <Element T>
bool holds_exactly(std::uint64_t magnitude) {
    if (magnitude == 0) {
        return true;
    }
    const std::uint64_t odd = magnitude >> std::countr_zero(magnitude);
    return std::bit_width(odd) <= static_cast<unsigned>(std::numeric_limits<T>::digits);
}

// The index of the element at `position` of the file's order, as the array's
// index: "[1, 2]".
std::string index_text(std::size_t position, const NpyHeader& header) {
    const std::vector<std::size_t>& shape = header.shape;
    std::vector<std::size_t> index(shape.size());
    for (std::size_t step = 0; step < shape.size(); ++step) {
        const std::size_t axis = header.fortran_order ? step : shape.size() - 1 - step;
        index[axis] = position % shape[axis];
        position /= shape[axis];
    }
    std::string text = "[";
    for (std::size_t axis = 0; axis < index.size(); ++axis) {
        text += (axis == 0 ? "" : ", ") + std::to_string(index[axis]);
    }
    return text + "]";
}

// Decodes the data of one header's elements into T, counting positions in the
// file's order so that a refusal names the element.
template <Element T>
class ElementDecoder {
public:
    ElementDecoder(const NpyHeader& header, const std::string& origin)
        : header_(header), origin_(origin) {}

    // Decodes the elements `bytes` holds into `into`, one per element.
    void decode(const unsigned char* bytes, std::span<T> into) {
        const NpyElement& element = header_.element;
        for (T& value : into) {
            const std::uint64_t bits = load_bits(bytes, element.bytes, element.big_endian);
            value = converted(bits);
            bytes += element.bytes;
            ++position_;
        }
    }

private:
    T converted(std::uint64_t bits) const {
        const NpyElement& element = header_.element;
        switch (element.kind) {
            case 'f':
                return from_float(bits);
            case 'i':
                return from_signed(bits);
            case 'u':
                return from_integer(bits, false, std::to_string(bits));
            default:
                return T(bits != 0 ? 1.0F : 0.0F);
        }
    }

    // A float16, float32 or float64, exact as a double, then rounded once to T.
    T from_float(std::uint64_t bits) const {
        switch (header_.element.bytes) {
            case 2:
                return from_double(half_to_float(bits));
            case 4:
                return from_double(bits_as<float>(static_cast<std::uint32_t>(bits)));
            default:
                return from_double(bits_as<double>(bits));
        }
    }

    T from_double(double value) const {
        if constexpr (std::is_same_v<T, float>) {
            if (std::isfinite(value) && std::abs(value) >= float_overflow) {
                refuse_range(value);
            }
        }
        const T result(value);
        if (std::isfinite(value) && std::isinf(static_cast<double>(result))) {
            refuse_range(value);
        }
        return result;
    }

    T from_signed(std::uint64_t bits) const {
        const std::size_t width = 8 * header_.element.bytes;
        const bool negative = width < 64 ? ((bits >> (width - 1)) & 1U) != 0 : (bits >> 63U) != 0;
        if (!negative) {
            return from_integer(bits, false, std::to_string(bits));
        }
        const std::uint64_t extended = width < 64 ? bits | (~std::uint64_t{0} << width) : bits;
        const std::uint64_t magnitude = ~extended + 1;
        return from_integer(magnitude, true, "-" + std::to_string(magnitude));
    }

    T from_integer(std::uint64_t magnitude, bool negative, const std::string& text) const {
        if (!holds_exactly<T>(magnitude)) {
            throw NpyError("cannot read " + origin_ + ": the element at " +
                           index_text(position_, header_) + " is " + text + ", which " +
                           name_of<T>() + " does not hold exactly; read it as a wider type");
        }
        const double value = static_cast<double>(magnitude);
        return T(negative ? -value : value);
    }

    [[noreturn]] void refuse_range(double value) const {
        throw NpyError("cannot read " + origin_ + ": the element at " +
                       index_text(position_, header_) + " is " + decimal(value) +
                       ", out of range for " + name_of<T>());
    }

    const NpyHeader& header_;
    const std::string& origin_;
    std::size_t position_ = 0;
};

// An open .npy file, its header read and checked against the file's size.
class NpyReader {
public:
    explicit NpyReader(const fs::path& path) : origin_(path.string()), file_(open(path)) {
        read_header();
    }

    const NpyHeader& header() const { return header_; }

    std::size_t elements() const {
        std::size_t count = 1;
        for (const std::size_t extent : header_.shape) {
            count *= extent;
        }
        return count;
    }

    // The elements, in the file's order, decoded into `into`.
    template <Element T>
    void read_data(std::span<T> into) {
        ElementDecoder<T> decoder(header_, origin_);
        const std::size_t size = header_.element.bytes;
        std::vector<unsigned char> chunk(chunk_bytes);
        while (!into.empty()) {
            const std::size_t count = std::min(into.size(), chunk_bytes / size);
            const std::size_t got = read_up_to(
                file_.get(), reinterpret_cast<char*>(chunk.data()), count * size, origin_);
            if (got < count * size) {
                refuse("the file ended while its data was read (it shrank)");
            }
            decoder.decode(chunk.data(), into.first(count));
            into = into.subspan(count);
        }
    }

private:
    int open(const fs::path& path) {
        const topos::detail::RegularFile file = topos::detail::open_regular_file(path);
        if (file.descriptor < 0 && file.error != 0) {
            refuse(reason(file.error));
        }
        if (file.descriptor < 0) {
            refuse("it is " + topos::detail::file_kind(file.mode) +
                   ", not a regular file; read_npy reads a file numpy.save wrote");
        }
        bytes_ = file.bytes;
        return file.descriptor;
    }

    void read_header() {
        std::array<char, 12> preamble{};
        const std::size_t got = read_up_to(file_.get(), preamble.data(), 10, origin_);
        const std::string_view start(preamble.data(), got);
        if (got == 0) {
            refuse("it is empty, not a .npy file");
        }
        if (!start.starts_with(npy_magic.substr(0, std::min(got, npy_magic.size())))) {
            refuse("it is not a .npy file: it does not begin with \"\\x93NUMPY\"");
        }
        if (got < 10) {
            refuse("it ends within its first 10 bytes, before its header begins");
        }
        const std::size_t length_bytes = length_size(preamble[6], preamble[7]);
        std::uint64_t length =
            load_bits(reinterpret_cast<const unsigned char*>(preamble.data() + 8), 2, false);
        std::size_t offset = 10;
        if (length_bytes == 4) {
            if (read_up_to(file_.get(), preamble.data() + 10, 2, origin_) < 2) {
                refuse("it ends within its first 12 bytes, before its header begins");
            }
            length =
                load_bits(reinterpret_cast<const unsigned char*>(preamble.data() + 8), 4, false);
            offset = 12;
        }
        parse(length, offset);
    }

    // The bytes of the header's length in format `major`.`minor`.
    std::size_t length_size(char major, char minor) const {
        if ((major == 1 || major == 2 || major == 3) && minor == 0) {
            return major == 1 ? 2 : 4;
        }
        refuse("it is in format version " + std::to_string(static_cast<unsigned char>(major)) +
               "." + std::to_string(static_cast<unsigned char>(minor)) +
               ", where read_npy reads versions 1.0, 2.0 and 3.0");
    }

    void parse(std::uint64_t length, std::size_t offset) {
        if (bytes_ < offset) {
            refuse("the file grew while it was read");
        }
        if (length > bytes_ - offset) {
            refuse("its header is cut short: it says it is " + std::to_string(length) +
                   " bytes long, but the file ends " + std::to_string(bytes_ - offset) +
                   " bytes into it");
        }
        if (length > longest_header) {
            refuse("its header is " + std::to_string(length) + " bytes long, more than the " +
                   std::to_string(longest_header) + " read_npy reads");
        }
        std::string text(length, '\0');
        if (read_up_to(file_.get(), text.data(), text.size(), origin_) < text.size()) {
            refuse("the file ended while its header was read (it shrank)");
        }
        header_ = parse_npy_header(text, origin_);
        check_data_length(bytes_ - offset - length);
    }

    void check_data_length(std::uint64_t data_bytes) const {
        const std::uint64_t needed = static_cast<std::uint64_t>(elements()) * header_.element.bytes;
        if (data_bytes == needed) {
            return;
        }
        const std::string expected = "its shape " + Shape(header_.shape).str() + " of '" +
                                     header_.element.descr + "' needs " + std::to_string(needed) +
                                     " bytes of data";
        if (data_bytes < needed) {
            refuse(expected + ", but the file holds only " + std::to_string(data_bytes) +
                   " after its header (it is cut short)");
        }
        refuse(expected + ", but the file holds " + std::to_string(data_bytes - needed) +
               " bytes more after them");
    }

    [[noreturn]] void refuse(const std::string& what) const {
        throw NpyError("cannot read " + origin_ + ": " + what);
    }

    std::string origin_;
    std::uint64_t bytes_ = 0;
    topos::detail::OwnedDescriptor file_;
    NpyHeader header_;
};

// Puts a Fortran-ordered array's elements (the first index fastest) in
// row-major order.
template <Element T>
void to_row_major(std::span<const T> columns, std::span<T> rows, const Shape& shape) {
    const std::size_t rank = shape.rank();
    std::array<std::size_t, Shape::max_rank> stride{};
    std::size_t step = 1;
    for (std::size_t axis = 0; axis < rank; ++axis) {
        stride[axis] = step;
        step *= shape[axis];
    }
    std::array<std::size_t, Shape::max_rank> index{};
    std::size_t source = 0;
    for (T& row : rows) {
        row = columns[source];
        for (std::size_t axis = rank; axis-- > 0;) {
            source += stride[axis];
            if (++index[axis] < shape[axis]) {
                break;
            }
            source -= stride[axis] * shape[axis];
            index[axis] = 0;
        }
    }
}

// What stands at a path a write replaces: the file to replace (a symbolic
// link's target), or a refusal.
fs::path write_target(const fs::path& path, const std::string& origin) {
    struct stat info {};

    if (::stat(path.c_str(), &info) == 0) {
        if (!S_ISREG(info.st_mode)) {
            throw NpyError("cannot write " + origin + ": it is " +
                           topos::detail::file_kind(info.st_mode) +
                           ", not a regular file; write_npy replaces a file or creates one");
        }
        std::error_code error;
        const fs::path resolved = fs::is_symlink(path, error) ? fs::canonical(path, error) : path;
        return error ? path : resolved;
    }
    const int error = errno;
    if (error == ENOENT && ::lstat(path.c_str(), &info) == 0) {
        throw NpyError("cannot write " + origin +
                       ": it is a symbolic link to nothing; write_npy replaces a file or "
                       "creates one");
    }
    if (path.empty() || !path.has_filename()) {
        throw NpyError("cannot write \"" + origin + "\": it names no file");
    }
    if (error != ENOENT) {
        throw NpyError("cannot write " + origin + ": " + reason(error));
    }
    return path;
}

// Beside the target, named by the process and a counter so that concurrent
// writes never share one.
fs::path temporary_beside(const fs::path& target) {
    static std::atomic<std::uint64_t> counter{0};
    std::string name(".");
    name += target.filename().string();
    name += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    return target.parent_path() / name;
}

// The bytes of a file being written: each chunk goes to the descriptor when
// full; the errno of the first failure is kept.
class FileWriter {
public:
    explicit FileWriter(const fs::path& path)
        : descriptor_(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) {
        error_ = descriptor_ < 0 ? errno : 0;
        buffer_.reserve(chunk_bytes);
    }

    FileWriter(const FileWriter&) = delete;
    FileWriter& operator=(const FileWriter&) = delete;

    ~FileWriter() { (void)close(); }

    void append(std::string_view bytes) {
        buffer_.append(bytes);
        if (buffer_.size() >= chunk_bytes) {
            flush();
        }
    }

    // Writes what is left and closes: 0, or the errno of the first failure.
    int close() {
        flush();
        if (descriptor_ >= 0 && ::close(descriptor_) != 0 && error_ == 0) {
            error_ = errno;
        }
        descriptor_ = -1;
        return error_;
    }

private:
    void flush() {
        std::string_view rest = buffer_;
        while (error_ == 0 && descriptor_ >= 0 && !rest.empty()) {
            const ssize_t done = ::write(descriptor_, rest.data(), rest.size());
            if (done < 0 && errno == EINTR) {
                continue;
            }
            if (done <= 0) {
                error_ = done < 0 ? errno : EIO;
                break;
            }
            rest.remove_prefix(static_cast<std::size_t>(done));
        }
        buffer_.clear();
    }

    int descriptor_;
    int error_ = 0;
    std::string buffer_;
};

// An element as the little-endian bytes of its .npy type ('<f4' or '<f8').
template <Element T>
void append_element(std::string& bytes, T value) {
    using Wide = std::conditional_t<std::is_same_v<T, double>, double, float>;
    using Bits = std::conditional_t<std::is_same_v<T, double>, std::uint64_t, std::uint32_t>;
    const auto bits = bits_as<Bits>(static_cast<Wide>(value));
    for (std::size_t i = 0; i < sizeof bits; ++i) {
        bytes.push_back(static_cast<char>((bits >> (8 * i)) & 0xffU));
    }
}

template <Element T>
constexpr std::string_view descr_of() {
    return std::is_same_v<T, double> ? "<f8" : "<f4";
}

template <Element T>
int write_file(const fs::path& file, const Tensor<T>& tensor) {
    FileWriter writer(file);
    writer.append(npy_preamble(descr_of<T>(), tensor.shape().extents()));
    std::string bytes;
    for (const T value : tensor.data()) {
        append_element(bytes, value);
        if (bytes.size() >= chunk_bytes) {
            writer.append(bytes);
            bytes.clear();
        }
    }
    writer.append(bytes);
    return writer.close();
}

template <Element T>
Tensor<T> read_tensor(const fs::path& path) {
    NpyReader reader(path);
    const NpyHeader& header = reader.header();
    const Shape shape(header.shape);
    if (!header.fortran_order || shape.rank() < 2) {
        return Tensor<T>::generate(shape, [&](std::span<T> into) { reader.read_data(into); });
    }
    std::vector<T> columns(shape.elements());
    reader.read_data(std::span<T>(columns));
    return Tensor<T>::generate(
        shape, [&](std::span<T> rows) { to_row_major(std::span<const T>(columns), rows, shape); });
}

template <Element T>
void write_tensor(const fs::path& path, const Tensor<T>& tensor) {
    const std::string origin = path.string();
    const fs::path target = write_target(path, origin);
    const fs::path temporary = temporary_beside(target);
    int error = write_file(temporary, tensor);
    if (error == 0 && std::rename(temporary.c_str(), target.c_str()) != 0) {
        error = errno;
    }
    if (error != 0) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        throw NpyError("cannot write " + origin + ": " + reason(error));
    }
}

}  // namespace
}  // namespace npy_file

template <Element T>
Tensor<T> read_npy(const std::filesystem::path& path) {
    return npy_file::read_tensor<T>(path);
}

template <Element T>
void write_npy(const std::filesystem::path& path, const Tensor<T>& tensor) {
    npy_file::write_tensor(path, tensor);
}

template Tensor<float> read_npy(const std::filesystem::path&);
template Tensor<double> read_npy(const std::filesystem::path&);
template Tensor<bf16> read_npy(const std::filesystem::path&);
template void write_npy(const std::filesystem::path&, const Tensor<float>&);
template void write_npy(const std::filesystem::path&, const Tensor<double>&);
template void write_npy(const std::filesystem::path&, const Tensor<bf16>&);

}  // namespace topos::data
