// One constructor per op row, each defined in its own file of src/ops/.
// op_table.cpp assembles them; its switch over Opcode has no default, so an
// opcode without a row fails the build.
#pragma once

#include "ops/op_info.hpp"

namespace topos::detail {

OpInfo parameter_row();
OpInfo input_row();
OpInfo leaf_row();
OpInfo add_row();
OpInfo sub_row();
OpInfo mul_row();
OpInfo div_row();
OpInfo maximum_row();
OpInfo neg_row();
OpInfo exp_row();
OpInfo log_row();
OpInfo tanh_row();
OpInfo sigmoid_row();
OpInfo matmul_row();
OpInfo sum_row();
OpInfo reshape_row();
OpInfo permute_row();
OpInfo broadcast_along_row();
OpInfo unfold_row();
OpInfo fold_row();
OpInfo narrow_row();
OpInfo pad_row();
OpInfo minimum_row();
OpInfo pow_row();
OpInfo compare_row();
OpInfo select_row();
OpInfo abs_row();
OpInfo sign_row();
OpInfo expm1_row();
OpInfo log1p_row();
OpInfo sqrt_row();
OpInfo rsqrt_row();
OpInfo square_row();
OpInfo sin_row();
OpInfo cos_row();
OpInfo erf_row();
OpInfo gelu_row();
OpInfo softplus_row();
OpInfo max_row();
OpInfo log_sum_exp_row();
OpInfo log_softmax_row();
OpInfo slice_row();
OpInfo concat_row();
OpInfo gather_row();
OpInfo scatter_add_row();
OpInfo one_hot_row();

}  // namespace topos::detail
