// SentencePieceModel: the one door to Google's SentencePiece library. Its
// processor is held behind a pointer, so that only sentencepiece_model.cpp
// includes <sentencepiece_processor.h>; everything else in topos::text sees
// ints and strings. Ids here are SentencePiece's ints, already checked by the
// caller to lie in 0..size()-1 where a method takes one.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace topos::detail {

class SentencePieceModel {
public:
    // The model whose serialized bytes are `serialized`; throws CheckpointError
    // naming `source` (a file, or "the bytes given") with SentencePiece's own
    // reason when they are not a SentencePiece model.
    static std::shared_ptr<const SentencePieceModel> load(std::string_view serialized,
                                                          const std::string& source);

    SentencePieceModel(const SentencePieceModel&) = delete;
    SentencePieceModel& operator=(const SentencePieceModel&) = delete;
    ~SentencePieceModel();

    // The ids of `text`, without control ids.
    std::vector<int> encode(std::string_view text) const;

    // The text of `ids`, each in range.
    std::string decode(const std::vector<int>& ids) const;

    // The piece of an id in range.
    const std::string& piece(int id) const;

    // Whether an id in range is a byte piece (<0xNN>).
    bool is_byte(int id) const;

    // The number of pieces.
    int size() const;

    // The control ids, -1 where the model has none.
    int bos() const;
    int eos() const;
    int unknown() const;

private:
    struct Processor;

    explicit SentencePieceModel(std::unique_ptr<Processor> processor);

    std::unique_ptr<Processor> processor_;
};

}  // namespace topos::detail
