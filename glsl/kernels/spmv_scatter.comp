// The scatter forms of the sparse product (seed 001's COO and CSC): every term is added into
// its output element with a float atomic (GL_NV_shader_atomic_float) in ylin, a buffer of y's
// texels as stored (float index = texel * 4 + channel); glsl/kernels/spmv_pack.comp then moves
// ylin into y's texture and leaves it zero. Only where the caller allowed a scatter form: the
// order of the additions, so the rounding, changes run to run.
//
// MODE 0 (COO): one invocation per entry: ylin[orow[e]] += val[e] x[col[e]].
// MODE 1 (a stored row format scattered along its columns: the CSC of the transposed copy for
// y = A x, A's own rows for y = A' x): one invocation per storage row p (texel order of the
// rows, as spmv_row.comp stores them) takes its element of x, which has the rows' layout, and
// adds conj(a) x_p into the output element of each of its entries' columns. FMT 0 CSR, 1 ELL,
// 2 SELL (slices of C rows) as in spmv_row.comp; PERM: storage group g is x's group perm[g].
// MODE 2 and 3 (COO without atomics, deterministic: a segmented reduction of the entries, which
// are sorted by output element): in MODE 2 each invocation sums ENT consecutive entries by
// output element, storing the elements whose entries all lie inside its range and leaving its
// first and last ones (which may continue in its neighbours) in carry[]; MODE 3, one invocation
// per carry slot, adds each element's carries in order and stores the sum.
// K entry floats; SOA; WG.
// Uniforms: u_i0 = (entries or storage rows, texels per row of the output, RS, ELL width),
// u_i1.z = NE (SOA planes), u_i2.x = texels (K = 4: texel pairs) per row of x (MODE 1),
// u_i2.y = invocations of MODE 2 (MODE 3).
#if MODE < 2 && !defined(TEXLA_ATOMIC_FLOAT)
#error the atomic scatter forms need GL_NV_shader_atomic_float
#endif
layout(local_size_x = WG) in;
uniform sampler2D u_src0;

#if K == 1
#define VT float
#define VZERO 0.0
#elif K == 2
#define VT vec2
#define VZERO vec2(0.0)
#else
#define VT vec4
#define VZERO vec4(0.0)
#endif
#define PAD 0xFFFFFFFFu

layout(std430, binding = 0) readonly buffer Ptr { uint ptr[]; };
layout(std430, binding = 1) readonly buffer Col { uint col[]; };
#if SOA
layout(std430, binding = 2) readonly buffer Val { float valf[]; };
#else
layout(std430, binding = 2) readonly buffer Val { VT val[]; };
#endif
#if PERM
layout(std430, binding = 4) readonly buffer Perm { uint perm[]; };
#endif
layout(std430, binding = 5) buffer Out { float ylin[]; };

VT entry(uint e) {
#if SOA
    uint ne = uint(u_i1.z);
#if K == 1
    return valf[e];
#elif K == 2
    return vec2(valf[e], valf[ne + e]);
#else
    return vec4(valf[e], valf[ne + e], valf[2u * ne + e], valf[3u * ne + e]);
#endif
#else
    return val[e];
#endif
}

VT emul(VT a, VT x) {
#if K == 1
    return a * x;
#elif K == 2
    return texla_cmul(a, x);
#else
    return texla_qmul(a, x);
#endif
}

VT conj_of(VT a) {
#if K == 1
    return a;
#elif K == 2
    return vec2(a.x, -a.y);
#else
    return vec4(a.x, -a.yzw);
#endif
}

// adds v into the output element whose first float is ylin[i]
void add_out(uint i, VT v) {
#if MODE >= 2
#elif K == 1
    atomicAdd(ylin[i], v);
#elif K == 2
    atomicAdd(ylin[i], v.x);
    atomicAdd(ylin[i + 1u], v.y);
#else
    atomicAdd(ylin[i], v.x);
    atomicAdd(ylin[i + 1u], v.y);
    atomicAdd(ylin[i + 4u], v.z);
    atomicAdd(ylin[i + 5u], v.w);
#endif
}

// a packed texel and channel of the output as its ylin index
uint out_index(uint c) {
    return (((c >> 15) & 0x7FFFu) * uint(u_i0.y) + (c & 0x7FFFu)) * 4u + (c >> 30);
}

#if MODE != 1
layout(std430, binding = 3) readonly buffer Orow { uint orow[]; };
#endif
#if MODE >= 2
// per invocation of MODE 2: (first element, its K floats, last element, its K floats); element
// PAD: none
layout(std430, binding = 6) buffer Carry { uint carry[]; };
#define CW (2u * (1u + uint(K)))

void put_out(uint i, VT v) {
#if K == 1
    ylin[i] = v;
#elif K == 2
    ylin[i] = v.x;
    ylin[i + 1u] = v.y;
#else
    ylin[i] = v.x;
    ylin[i + 1u] = v.y;
    ylin[i + 4u] = v.z;
    ylin[i + 5u] = v.w;
#endif
}

void put_carry(uint slot, uint row, VT v) {
    uint b = slot * (1u + uint(K));
    carry[b] = row;
#if K == 1
    carry[b + 1u] = floatBitsToUint(v);
#else
    for (uint c = 0u; c < uint(K); ++c) carry[b + 1u + c] = floatBitsToUint(v[c]);
#endif
}

VT carry_val(uint slot) {
    uint b = slot * (1u + uint(K));
#if K == 1
    return uintBitsToFloat(carry[b + 1u]);
#else
    VT v;
    for (uint c = 0u; c < uint(K); ++c) v[c] = uintBitsToFloat(carry[b + 1u + c]);
    return v;
#endif
}

uint carry_row(uint slot) { return carry[slot * (1u + uint(K))]; }
#endif

#if MODE != 1

VT xat(uint c) {
    ivec2 t = ivec2(int(c & 0x7FFFu), int((c >> 15) & 0x7FFFu));
    uint ch = c >> 30;
#if K == 1
    return texelFetch(u_src0, t, 0)[ch];
#elif K == 2
    vec4 v = texelFetch(u_src0, t, 0);
    return ch == 0u ? v.xy : v.zw;
#else
    vec4 a = texelFetch(u_src0, t, 0), b = texelFetch(u_src0, t + ivec2(1, 0), 0);
    return ch == 0u ? vec4(a.xy, b.xy) : vec4(a.zw, b.zw);
#endif
}

#if MODE == 0
void main() {
    uint e = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * uint(WG);
    if (e >= uint(u_i0.x)) return;
    add_out(orow[e], emul(entry(e), xat(col[e])));
}
#elif MODE == 2
void main() {
    uint g = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * uint(WG);
    uint n = uint(u_i0.x), e0 = g * uint(ENT);
    if (e0 >= n) return;
    uint e1 = min(e0 + uint(ENT), n), cur = orow[e0];
    bool first = true;
    VT acc = VZERO;
    for (uint e = e0; e < e1; ++e) {
        uint r = orow[e];
        if (r != cur) {
            if (first) put_carry(2u * g, cur, acc);
            else put_out(cur, acc);
            first = false;
            cur = r;
            acc = VZERO;
        }
        acc += emul(entry(e), xat(col[e]));
    }
    if (first) {
        put_carry(2u * g, cur, acc);
        put_carry(2u * g + 1u, PAD, VZERO);
    } else {
        put_carry(2u * g + 1u, cur, acc);
    }
}
#else
// the slot before s that holds an element (every invocation's first slot does)
uint prev_slot(uint s) {
    if ((s & 1u) == 1u) return s - 1u;
    return carry_row(s - 1u) != PAD ? s - 1u : s - 2u;
}

void main() {
    uint s = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * uint(WG);
    uint slots = 2u * uint(u_i2.y);
    if (s >= slots) return;
    uint r = carry_row(s);
    if (r == PAD || (s > 0u && carry_row(prev_slot(s)) == r)) return;
    VT acc = VZERO;
    for (uint t = s; t < slots; ++t) {
        uint q = carry_row(t);
        if (q == PAD) continue;
        if (q != r) break;
        acc += carry_val(t);
    }
    put_out(r, acc);
}
#endif
#else
// x at storage row p of the rows' layout (group p / G, row p % G of it)
VT x_of_row(uint p) {
    uint w = uint(u_i2.x);
#if K == 1
    uint g = p >> 2;
#else
    uint g = p >> 1;
#endif
#if PERM
    g = perm[g];
#endif
#if K == 4
    ivec2 pos = ivec2(int(2u * (g % w)), int(g / w));
    vec4 a = texelFetch(u_src0, pos, 0), b = texelFetch(u_src0, pos + ivec2(1, 0), 0);
    return (p & 1u) == 0u ? vec4(a.xy, b.xy) : vec4(a.zw, b.zw);
#else
    vec4 v = texelFetch(u_src0, ivec2(int(g % w), int(g / w)), 0);
#if K == 1
    return v[p & 3u];
#else
    return (p & 1u) == 0u ? v.xy : v.zw;
#endif
#endif
}

void main() {
    uint p = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * uint(WG);
    if (p >= uint(u_i0.x)) return;
#if FMT == 0
    uint e0 = ptr[p], n = ptr[p + 1u] - e0, st = 1u;
#elif FMT == 1
    uint e0 = p, n = uint(u_i0.w), st = uint(u_i0.z);
#else
    uint s = p / uint(C), base = ptr[s];
    uint e0 = base + (p & uint(C - 1)), n = (ptr[s + 1u] - base) / uint(C), st = uint(C);
#endif
    if (n == 0u) return;
    VT xp = x_of_row(p);
    for (uint j = 0u; j < n; ++j) {
        uint e = e0 + j * st, c = col[e];
        if (c != PAD) add_out(out_index(c), emul(conj_of(entry(e)), xp));
    }
}
#endif
