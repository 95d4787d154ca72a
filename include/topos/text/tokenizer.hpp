// Tokenizer: the SentencePiece model of a language-model folder
// (tokenizer.model, as the Llama family ships it) read with Google's
// SentencePiece library, which turns text into the ids a model embeds and ids
// back into text; TextStream: the text of ids one at a time, as a model
// generates them. Nothing here names SentencePiece's types: the library's
// processor lives behind a pointer (src/text/sentencepiece_model.cpp). A
// Tokenizer is immutable after it is read: copies share it, and any number of
// threads may encode and decode with one at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace topos {

namespace detail {
class SentencePieceModel;
}  // namespace detail

// The control ids Tokenizer::encode puts around a text: none, the model's
// beginning-of-sequence id in front (what a prompt starts with), or that and
// its end-of-sequence id behind (a whole training text).
enum class Ends {
    None,
    Bos,
    BosEos,
};

// A SentencePiece model: encode, decode, and the pieces of its vocabulary.
// Ids are 0..vocabulary()-1, as std::int64_t, the type of a model's token
// inputs.
class Tokenizer {
public:
    // The SentencePiece model in the regular file `model_file`
    // (tokenizer.model). Throws CheckpointError, naming the file, when it is
    // missing, unreadable, not a regular file (saying what it is), larger than
    // 1 GiB, or not a SentencePiece model. Time and memory O(file size).
    static Tokenizer open(const std::filesystem::path& model_file);

    // The SentencePiece model whose serialized bytes are `serialized` (the
    // contents of a tokenizer.model). Throws CheckpointError when they are not
    // a SentencePiece model.
    static Tokenizer from_bytes(std::string_view serialized);

    // The ids of `text` (UTF-8, normalized as the model says), with the control
    // ids `ends` asks for. A character the vocabulary lacks is spelled by its
    // UTF-8 bytes (<0xNN> pieces) where the model has byte fallback, else by
    // the unknown id. Throws CheckpointError when `ends` asks for an id the
    // model has none of (bos() or eos() is nullopt). Time O(text size) for BPE
    // and unigram models.
    std::vector<std::int64_t> encode(std::string_view text, Ends ends = Ends::Bos) const;

    // The text of `ids`: control ids (BOS, EOS) read as nothing, byte pieces
    // join into the UTF-8 characters they spell (a byte sequence that is not
    // valid UTF-8 reads as U+FFFD), and the leading space SentencePiece adds
    // to a text is taken off again. Throws IndexError naming the first id
    // outside 0..vocabulary()-1. Time O(ids.size() plus the text).
    std::string decode(std::span<const std::int64_t> ids) const;

    // The piece of `id` as the vocabulary spells it: "▁the" (U+2581 marks a
    // space), "<0x0A>" for a byte, "<s>" for a control id. Throws IndexError
    // when `id` is outside 0..vocabulary()-1.
    std::string piece(std::int64_t id) const;

    // The number of pieces: ids run from 0 to vocabulary() - 1.
    std::size_t vocabulary() const;

    // The beginning-of-sequence id, or nullopt where the model has none.
    std::optional<std::int64_t> bos() const;

    // The end-of-sequence id, or nullopt where the model has none.
    std::optional<std::int64_t> eos() const;

    // The id of unknown text, or nullopt where the model has none.
    std::optional<std::int64_t> unknown() const;

    // Whether `id` is a byte piece (<0xNN>). Throws IndexError when `id` is
    // outside 0..vocabulary()-1.
    bool is_byte(std::int64_t id) const;

private:
    explicit Tokenizer(std::shared_ptr<const detail::SentencePieceModel> model);

    std::shared_ptr<const detail::SentencePieceModel> model_;
};

// The text of ids that arrive one at a time, as a model generates them:
// push(id) returns the text that id newly completes, so that the pieces
// returned by every push and by finish() join into exactly decode() of all
// the ids. A character spelled by several byte pieces comes out whole, with
// the push of its last byte; the leading space SentencePiece adds to a text is
// dropped as decode drops it. Keeps a copy of the tokenizer (which shares its
// model), so it may outlive the one it was made from.
class TextStream {
public:
    // A stream of no ids yet, decoding with `tokenizer`.
    explicit TextStream(const Tokenizer& tokenizer);

    // The text `id` completes (often one word or part of one, sometimes
    // nothing while a character's bytes are still arriving). Throws
    // IndexError when `id` is outside 0..vocabulary()-1, and then leaves the
    // stream as it was. Time O(1) in the ids pushed before: the stream keeps
    // only those since the last whole piece or character, and decodes only them.
    std::string push(std::int64_t id);

    // The text still held back (the bytes of an unfinished character, read as
    // decode reads them: U+FFFD); the stream then starts afresh.
    std::string finish();

private:
    Tokenizer tokenizer_;
    std::vector<std::int64_t> ids_;  // since the last whole piece or character, and it
    std::size_t emitted_ = 0;        // bytes of decode(ids_) already returned
};

}  // namespace topos
