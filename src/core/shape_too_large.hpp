// The ShapeError a Shape throws when its extents multiply past
// Shape::max_elements. Shape rules catch it by this type to add the operation
// and its operands to the message; users see a ShapeError.
#pragma once

#include <topos/core/error.hpp>

namespace topos::detail {

class ShapeTooLarge : public ShapeError {
public:
    using ShapeError::ShapeError;
};

}  // namespace topos::detail
