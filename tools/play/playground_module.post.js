// readings(program, options): the program's six readings, or its error, as the
// object topos::lang::answer_json describes. options: {target, observed,
// numerics: 'exact' | 'fast'}, each optional.
Module['readings'] = function (program, options) {
  const chosen = options || {};
  const answer = Module['ccall'](
    'topos_readings',
    'string',
    ['string', 'string', 'string', 'number'],
    [program, chosen.target || '', chosen.observed || '', chosen.numerics === 'fast' ? 1 : 0]);
  return JSON.parse(answer);
};
