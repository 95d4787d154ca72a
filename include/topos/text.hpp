// topos::text, the SentencePiece tokenizer of language-model folders
// (find_package(topos CONFIG COMPONENTS text), linking topos::text): text into
// the ids a model embeds, and ids back into text, whole or as they arrive.
#pragma once

#include <topos/text/tokenizer.hpp>  // IWYU pragma: export
