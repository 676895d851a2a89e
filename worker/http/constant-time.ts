// Comparing secrets without leaking, through timing, how much of a guess was right.
const encoder = new TextEncoder();

export function constantTimeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  // The length of what is compared (a fixed-size token or digest) is no secret.
  if (left.length !== right.length) return false;
  let difference = 0;
  for (let i = 0; i < left.length; i++) difference |= left[i]! ^ right[i]!;
  return difference === 0;
}
