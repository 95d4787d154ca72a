// Tokenizer and TextStream (<topos/text/tokenizer.hpp>): reading a
// SentencePiece model file, checking ids against the vocabulary before
// SentencePiece sees them, the control ids around a text, and the stream's
// rule for what a new id completes. SentencePiece itself is reached only
// through SentencePieceModel (sentencepiece_model.hpp).
#include "core/regular_file.hpp"
#include "text/sentencepiece_model.hpp"
#include <topos/core/error.hpp>
#include <topos/text/tokenizer.hpp>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace topos {
namespace {

// The largest model file open reads: Llama's is 0.5 MB, the largest released
// vocabularies a few MB.
constexpr std::uint64_t max_model_bytes = std::uint64_t{1} << 30;

// The whole of the regular file `path`, or a CheckpointError naming it.
std::string file_bytes(const std::filesystem::path& path) {
    const detail::RegularFile file = detail::open_regular_file(path);
    if (file.descriptor < 0) {
        throw CheckpointError("cannot read the SentencePiece model " + path.string() + ": " +
                              (file.error != 0 ? std::generic_category().message(file.error)
                                               : "it is " + detail::file_kind(file.mode)));
    }
    const detail::OwnedDescriptor owned(file.descriptor);
    if (file.bytes > max_model_bytes) {
        throw CheckpointError("the SentencePiece model " + path.string() + " holds " +
                              std::to_string(file.bytes) +
                              " bytes, more than a tokenizer.model may (1 GiB)");
    }
    std::string bytes(static_cast<std::size_t>(file.bytes), '\0');
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t got = ::read(owned.get(), bytes.data() + done, bytes.size() - done);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            throw CheckpointError(
                "cannot read the SentencePiece model " + path.string() + ": " +
                (got < 0 ? std::generic_category().message(errno) : "it ended early"));
        }
        done += static_cast<std::size_t>(got);
    }
    return bytes;
}

// `id` as SentencePiece's int, or an IndexError naming it and the range.
int checked_id(std::int64_t id, int size) {
    if (id < 0 || id >= size) {
        throw IndexError("token id " + std::to_string(id) + " is outside the vocabulary: ids run " +
                         "from 0 to " + std::to_string(size - 1));
    }
    return static_cast<int>(id);
}

// A control id of the model, or nullopt where it has none (SentencePiece says
// -1).
std::optional<std::int64_t> control_id(int id, int size) {
    if (id < 0 || id >= size) {
        return std::nullopt;
    }
    return id;
}

// The byte a byte piece spells ("<0xE2>" is 0xE2).
unsigned byte_of(const std::string& piece) {
    unsigned value = 0;
    for (std::size_t at = 3; at + 1 < piece.size(); ++at) {
        const char digit = piece[at];
        const unsigned nibble = digit >= 'a'   ? static_cast<unsigned>(digit - 'a' + 10)
                                : digit >= 'A' ? static_cast<unsigned>(digit - 'A' + 10)
                                               : static_cast<unsigned>(digit - '0');
        value = value * 16 + nibble;
    }
    return value;
}

// How many bytes a UTF-8 character starting with `lead` has: 1 to 4, or 0 for
// a byte that cannot start one (a continuation byte, or one UTF-8 never uses).
std::size_t utf8_length(unsigned lead) {
    if (lead < 0x80) {
        return 1;
    }
    if (lead >= 0xC2 && lead <= 0xDF) {
        return 2;
    }
    if (lead >= 0xE0 && lead <= 0xEF) {
        return 3;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        return 4;
    }
    return 0;
}

}  // namespace

Tokenizer::Tokenizer(std::shared_ptr<const detail::SentencePieceModel> model)
    : model_(std::move(model)) {}

Tokenizer Tokenizer::open(const std::filesystem::path& model_file) {
    return Tokenizer(detail::SentencePieceModel::load(file_bytes(model_file), model_file.string()));
}

Tokenizer Tokenizer::from_bytes(std::string_view serialized) {
    return Tokenizer(detail::SentencePieceModel::load(serialized, "the bytes given"));
}

std::vector<std::int64_t> Tokenizer::encode(std::string_view text, Ends ends) const {
    const auto bos_id = bos();
    const auto eos_id = eos();
    if (ends != Ends::None && !bos_id) {
        throw CheckpointError(
            "this SentencePiece model has no beginning-of-sequence id: encode with Ends::None");
    }
    if (ends == Ends::BosEos && !eos_id) {
        throw CheckpointError(
            "this SentencePiece model has no end-of-sequence id: encode with Ends::Bos or "
            "Ends::None");
    }
    const std::vector<int> pieces = model_->encode(text);
    std::vector<std::int64_t> ids;
    ids.reserve(pieces.size() + 2);
    if (ends != Ends::None) {
        ids.push_back(*bos_id);
    }
    ids.insert(ids.end(), pieces.begin(), pieces.end());
    if (ends == Ends::BosEos) {
        ids.push_back(*eos_id);
    }
    return ids;
}

std::string Tokenizer::decode(std::span<const std::int64_t> ids) const {
    std::vector<int> checked;
    checked.reserve(ids.size());
    for (const std::int64_t id : ids) {
        checked.push_back(checked_id(id, model_->size()));
    }
    return model_->decode(checked);
}

std::string Tokenizer::piece(std::int64_t id) const {
    return model_->piece(checked_id(id, model_->size()));
}

std::size_t Tokenizer::vocabulary() const {
    return static_cast<std::size_t>(model_->size());
}

std::optional<std::int64_t> Tokenizer::bos() const {
    return control_id(model_->bos(), model_->size());
}

std::optional<std::int64_t> Tokenizer::eos() const {
    return control_id(model_->eos(), model_->size());
}

std::optional<std::int64_t> Tokenizer::unknown() const {
    return control_id(model_->unknown(), model_->size());
}

bool Tokenizer::is_byte(std::int64_t id) const {
    return model_->is_byte(checked_id(id, model_->size()));
}

TextStream::TextStream(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {}

// The ids kept (those since the last whole piece or character) decode to a
// text whose first emitted_ bytes were returned.
// A character spelled by byte pieces may still be arriving: while the ids end
// in byte pieces that do not end a whole UTF-8 character, those pieces are
// held back (decode would read them as U+FFFD), from the unfinished
// character's lead byte on, and the text before them is what is new. What
// comes before a lead byte decodes the same whatever follows, so what was
// returned stays a prefix of the final decode; bytes that are no character's
// (a stray continuation byte) read as U+FFFD whatever follows, and go at once.
std::string TextStream::push(std::int64_t id) {
    const bool byte = tokenizer_.is_byte(id);  // checks the id first
    ids_.push_back(id);
    std::size_t run = 0;  // trailing byte pieces
    while (run < ids_.size() && tokenizer_.is_byte(ids_[ids_.size() - 1 - run])) {
        ++run;
    }
    // The byte of the byte piece `back` places from the end (1 is the last).
    const auto byte_at = [&](std::size_t back) {
        return byte_of(tokenizer_.piece(ids_[ids_.size() - back]));
    };
    std::size_t held = 0;   // ids of an unfinished character, at the end
    std::size_t whole = 1;  // ids of the last whole piece or character, or 0
    if (byte) {
        // The last character's bytes, from its lead byte to the end: held
        // while fewer than its lead byte announces.
        std::size_t tail = 1;
        while (tail <= run && (byte_at(tail) & 0xC0U) == 0x80U) {
            ++tail;
        }
        const std::size_t length = tail <= run ? utf8_length(byte_at(tail)) : 0;
        held = tail < length ? tail : 0;
        whole = tail == length ? tail : 0;
    }
    const std::string text =
        tokenizer_.decode(std::span<const std::int64_t>(ids_).first(ids_.size() - held));
    std::string fresh = text.size() > emitted_ ? text.substr(emitted_) : std::string();
    emitted_ = std::max(emitted_, text.size());
    if (whole > 0) {
        // What follows a whole piece that is not a control id (one whose own
        // text is not empty), or a whole character of byte pieces, decodes the
        // same after it alone as after every id so far: no byte awaits its
        // character, and the leading space is already taken off. So only it
        // is kept, and a push costs O(1).
        const auto last = std::span<const std::int64_t>(ids_).last(whole);
        std::string alone = tokenizer_.decode(last);
        if (!alone.empty()) {
            ids_.erase(ids_.begin(), ids_.end() - static_cast<std::ptrdiff_t>(whole));
            emitted_ = alone.size();
        }
    }
    return fresh;
}

std::string TextStream::finish() {
    const std::string text = tokenizer_.decode(ids_);
    std::string rest = text.size() > emitted_ ? text.substr(emitted_) : std::string();
    ids_.clear();
    emitted_ = 0;
    return rest;
}

}  // namespace topos
