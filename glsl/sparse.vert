// One point per group of up to four nonzeros of a row: it lands on the row's texel of y
// (u_shape = (1, rows, nx of y); u_i0.xy = y's texture size) and carries the partial row
// product sum_i val_i * x[col_i] (x = u_src0, its rows u_i0.z wide; col -1 = unused).
layout(location = 0) in int a_row;
layout(location = 1) in ivec4 a_col;
layout(location = 2) in vec4 a_val;
uniform sampler2D u_src0;
flat out float v_sum;
flat out int v_channel;
void main() {
    float s = 0.0;
    for (int i = 0; i < 4; ++i)
        if (a_col[i] >= 0) s += a_val[i] * texla_vec_fetch(u_src0, a_col[i], u_i0.z);
    ivec3 l = texla_vec_locate(a_row, u_shape.z);
    v_sum = s;
    v_channel = l.z;
    gl_Position = vec4((vec2(l.xy) + 0.5) / vec2(u_i0.xy) * 2.0 - 1.0, 0.0, 1.0);
    gl_PointSize = 1.0;
}
