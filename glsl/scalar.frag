// Scalar arithmetic on 1x1 textures: a = u_src0.x, b = u_src1.x; o = (r, 0, 0, 0).
// u_i0.x: 0 a / b, 1 (b == 0 ? 0 : a / b), 2 a * b, 3 a - b, 4 -a.
uniform sampler2D u_src0;
uniform sampler2D u_src1;
vec4 texla_op(ivec2 t) {
    float a = texelFetch(u_src0, ivec2(0, 0), 0).x;
    float b = u_i0.x == 4 ? 0.0 : texelFetch(u_src1, ivec2(0, 0), 0).x;
    float r;
    if (u_i0.x == 0) r = a / b;
    else if (u_i0.x == 1) r = b == 0.0 ? 0.0 : a / b;
    else if (u_i0.x == 2) r = a * b;
    else if (u_i0.x == 3) r = a - b;
    else r = -a;
    return vec4(r, 0.0, 0.0, 0.0);
}
