// readings(program, options): the program's six readings, or its error, as the
// object topos::lang::answer_json describes. options: {target, observed,
// numerics: 'exact' | 'fast'}, each optional.
//
// The texts go to the module through its heap, never its stack, UTF-8 encoded
// into one block: of each, at most the module's max_source_bytes and one more
// character, so a longer program reaches answer_json with more bytes than it
// reads, and is refused there with the same error the native reader gives,
// while the block stays small whatever the page holds.
Module['readings'] = function (program, options) {
  const chosen = options || {};
  const texts = [String(program), String(chosen.target || ''), String(chosen.observed || '')];
  const most = Module['ccall']('topos_max_source_bytes', 'number', [], []);
  // UTF-8 takes at most 3 bytes for each UTF-16 unit, 4 for a surrogate pair.
  const rooms = texts.map((text) => Math.min(3 * text.length, most + 4));
  const block = Module['ccall']('topos_allocate', 'number', ['number'],
    [rooms.reduce((sum, room) => sum + room, 1)]);
  if (block === 0) {
    return { error: { message: 'the playground could not allocate memory for the program', line: null, column: null } };
  }
  let answer;
  try {
    const encoder = new TextEncoder();
    const places = [];
    let at = block;
    texts.forEach((text, index) => {
      // HEAPU8 is read after the allocation, which may have grown the memory.
      const written = encoder.encodeInto(text, HEAPU8.subarray(at, at + rooms[index])).written;
      places.push(at, written);
      at += rooms[index];
    });
    answer = Module['ccall'](
      'topos_readings',
      'string',
      ['number', 'number', 'number', 'number', 'number', 'number', 'number'],
      [...places, chosen.numerics === 'fast' ? 1 : 0]);
  } finally {
    Module['ccall']('topos_release', null, ['number'], [block]);
  }
  return JSON.parse(answer);
};
