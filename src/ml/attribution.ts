/**
 * Per-flow attribution for the tree ensemble: Saabas-style path contributions. Walking a flow down each tree, every
 * split moves the node's attack score (1 - P(benign)); that change is credited to the split's feature. Averaged over
 * the trees, bias + sum(contributions) equals the model's score exactly, so the top contributions are the features
 * that actually drove this flow's score (not a global ranking). The structure comes from `<model>.trees.json`,
 * written by the training script next to the `.onnx` and tied to it by sha256.
 */
import { z } from 'zod';

const treeFileSchema = z.object({
  model: z.string(),
  version: z.string(),
  sha256: z.string(),
  trees: z
    .array(
      z.object({
        feature: z.array(z.number().int()),
        threshold: z.array(z.number()),
        left: z.array(z.number().int()),
        right: z.array(z.number().int()),
        score: z.array(z.number()),
      }),
    )
    .min(1),
});

interface Tree {
  feature: Int32Array;
  threshold: Float32Array;
  left: Int32Array;
  right: Int32Array;
  score: Float64Array;
}

/** The forest, ready to attribute. */
export class PathAttributor {
  readonly sha256: string;
  /** Mean root score: the score of a flow before any split (the training prior under the class weights). */
  readonly bias: number;
  private readonly trees: Tree[];

  private constructor(
    sha256: string,
    trees: Tree[],
    private readonly width: number,
  ) {
    this.sha256 = sha256;
    this.trees = trees;
    this.bias = trees.reduce((a, t) => a + (t.score[0] as number), 0) / trees.length;
  }

  /** Parses a trees file; throws (zod / RangeError) when it is malformed or names a feature beyond `width`. */
  static parse(json: unknown, width: number): PathAttributor {
    const file = treeFileSchema.parse(json);
    const trees = file.trees.map((t, i) => {
      const n = t.feature.length;
      if ([t.threshold, t.left, t.right, t.score].some((a) => a.length !== n)) throw new RangeError(`tree ${i}: node arrays differ in length`);
      for (let k = 0; k < n; k++) {
        const f = t.feature[k] as number;
        if (f >= width) throw new RangeError(`tree ${i}: feature ${f} beyond the model's ${width}`);
        if (f >= 0 && ((t.left[k] as number) <= k || (t.right[k] as number) <= k || (t.right[k] as number) >= n))
          throw new RangeError(`tree ${i}: bad children at node ${k}`);
      }
      return {
        feature: Int32Array.from(t.feature),
        threshold: Float32Array.from(t.threshold),
        left: Int32Array.from(t.left),
        right: Int32Array.from(t.right),
        score: Float64Array.from(t.score),
      };
    });
    return new PathAttributor(file.sha256, trees, width);
  }

  /**
   * Contribution of each feature (score units, may be negative) for one flow's feature row (model order, float32
   * values as the model sees them). `bias + sum(result)` is the flow's score.
   */
  attribute(row: ArrayLike<number>): Float64Array {
    const out = new Float64Array(this.width);
    for (const t of this.trees) {
      let n = 0;
      let f = t.feature[0] as number;
      while (f >= 0) {
        const next = (row[f] as number) <= (t.threshold[n] as number) ? (t.left[n] as number) : (t.right[n] as number);
        out[f] = (out[f] as number) + ((t.score[next] as number) - (t.score[n] as number));
        n = next;
        f = t.feature[n] as number;
      }
    }
    const k = 1 / this.trees.length;
    for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) * k;
    return out;
  }
}
