// The browser viewer's WebGL2 renderer (docs/web.md): skinned meshes (the
// palette in a float texture, four matrices' columns per row, skinned in the
// vertex shader, or CPU-skinned positions from the library), the terrain,
// and the skeleton overlay as lines.
'use strict';

const VS = `#version 300 es
precision highp float;
precision highp int;
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_nrm;
layout(location = 2) in uvec4 a_joints;
layout(location = 3) in vec4 a_weights;
uniform mat4 u_view_proj;
uniform highp sampler2D u_palette;
uniform int u_offset;   // first palette row of this draw
uniform int u_mode;     // 0 skinned through the palette, 1 rigid (row u_offset), 2 as given (CPU-skinned, terrain)
out vec3 v_nrm;
mat4 palette(uint j) {
  int row = u_offset + int(j);
  return mat4(texelFetch(u_palette, ivec2(0, row), 0), texelFetch(u_palette, ivec2(1, row), 0),
              texelFetch(u_palette, ivec2(2, row), 0), texelFetch(u_palette, ivec2(3, row), 0));
}
void main() {
  mat4 m = mat4(1.0);
  if (u_mode == 0)
    m = a_weights.x * palette(a_joints.x) + a_weights.y * palette(a_joints.y) +
        a_weights.z * palette(a_joints.z) + a_weights.w * palette(a_joints.w);
  else if (u_mode == 1)
    m = palette(0u);
  v_nrm = mat3(m) * a_nrm;
  gl_Position = u_view_proj * (m * vec4(a_pos, 1.0));
}`;

const FS = `#version 300 es
precision mediump float;
in vec3 v_nrm;
uniform vec4 u_color;
uniform int u_lit;
out vec4 o_color;
void main() {
  if (u_lit == 0) { o_color = u_color; return; }
  vec3 n = normalize(v_nrm);
  if (!gl_FrontFacing) n = -n;
  float d = max(dot(n, normalize(vec3(0.4, 0.8, 0.5))), 0.0);
  o_color = vec4(u_color.rgb * (0.3 + 0.7 * d), 1.0);
}`;

export const BACKGROUND = [0.13, 0.14, 0.17];

function compile(gl, type, src) {
  const s = gl.createShader(type);
  gl.shaderSource(s, src);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error('shader: ' + gl.getShaderInfoLog(s));
  return s;
}

function mul4(a, b) { // column-major a * b
  const o = new Float32Array(16);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) {
      let s = 0;
      for (let k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
      o[c * 4 + r] = s;
    }
  return o;
}

function lookAt(eye, at) {
  const f = [at[0] - eye[0], at[1] - eye[1], at[2] - eye[2]];
  const fl = Math.hypot(...f); f[0] /= fl; f[1] /= fl; f[2] /= fl;
  let s = [f[1] * 0 - f[2] * 1, f[2] * 0 - f[0] * 0, f[0] * 1 - f[1] * 0]; // f x up(0,1,0)
  const sl = Math.hypot(...s) || 1; s = s.map((x) => x / sl);
  const u = [s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]];
  return new Float32Array([s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0,
    -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]), -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]),
    f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2], 1]);
}

function perspective(fovy, aspect, near, far) {
  const t = 1 / Math.tan(fovy / 2);
  return new Float32Array([t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0, (far + near) / (near - far), -1,
    0, 0, 2 * far * near / (near - far), 0]);
}

export class Renderer {
  constructor(canvas) {
    const gl = canvas.getContext('webgl2', { antialias: false, preserveDrawingBuffer: true });
    if (!gl) throw new Error('WebGL2 is not available in this browser');
    this.gl = gl;
    this.canvas = canvas;
    const p = gl.createProgram();
    gl.attachShader(p, compile(gl, gl.VERTEX_SHADER, VS));
    gl.attachShader(p, compile(gl, gl.FRAGMENT_SHADER, FS));
    gl.linkProgram(p);
    if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error('program: ' + gl.getProgramInfoLog(p));
    this.prog = p;
    this.u = {};
    for (const n of ['u_view_proj', 'u_palette', 'u_offset', 'u_mode', 'u_color', 'u_lit'])
      this.u[n] = gl.getUniformLocation(p, n);
    this.palette = gl.createTexture();
    this.draws = [];
    this.terrain = null;
    this.lines = { vao: gl.createVertexArray(), buf: gl.createBuffer(), count: 0 };
    gl.bindVertexArray(this.lines.vao);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.lines.buf);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
    gl.bindVertexArray(null);
    // Attribute 2 is integer: its value where a VAO has no joints must be too.
    gl.vertexAttribI4ui(2, 0, 0, 0, 0);
    this.yaw = 0.6; this.pitch = 0.25; this.distance = 3;
    this.fixed = null; // a view-projection matrix (Float32Array, column-major) used instead of the orbit
  }

  buffer(target, data, usage) {
    const gl = this.gl, b = gl.createBuffer();
    gl.bindBuffer(target, b);
    gl.bufferData(target, data, usage || gl.STATIC_DRAW);
    return b;
  }

  // meshes: [{positions, normals, joints (Uint16Array x4), weights, indices, color, paletteOffset, rigid}]
  setMeshes(meshes) {
    const gl = this.gl;
    for (const d of this.draws) { gl.deleteVertexArray(d.vao); d.bufs.forEach((b) => gl.deleteBuffer(b)); }
    this.draws = meshes.map((m) => {
      const vao = gl.createVertexArray();
      gl.bindVertexArray(vao);
      const pos = this.buffer(gl.ARRAY_BUFFER, m.positions, gl.DYNAMIC_DRAW);
      gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
      const nrm = this.buffer(gl.ARRAY_BUFFER, m.normals, gl.DYNAMIC_DRAW);
      gl.enableVertexAttribArray(1); gl.vertexAttribPointer(1, 3, gl.FLOAT, false, 0, 0);
      const jnt = this.buffer(gl.ARRAY_BUFFER, m.joints);
      gl.enableVertexAttribArray(2); gl.vertexAttribIPointer(2, 4, gl.UNSIGNED_SHORT, 0, 0);
      const wgt = this.buffer(gl.ARRAY_BUFFER, m.weights);
      gl.enableVertexAttribArray(3); gl.vertexAttribPointer(3, 4, gl.FLOAT, false, 0, 0);
      const idx = this.buffer(gl.ELEMENT_ARRAY_BUFFER, m.indices);
      gl.bindVertexArray(null);
      return { vao, bufs: [pos, nrm, jnt, wgt, idx], pos, nrm, rest: m, count: m.indices.length,
        color: m.color, offset: m.paletteOffset, rigid: m.rigid, cpu: false };
    });
  }

  // The terrain grid: interleaved position + normal, triangle indices (null: none).
  setTerrain(vertices, indices) {
    const gl = this.gl;
    if (this.terrain) { gl.deleteVertexArray(this.terrain.vao); this.terrain.bufs.forEach((b) => gl.deleteBuffer(b)); }
    this.terrain = null;
    if (!vertices) return;
    const vao = gl.createVertexArray();
    gl.bindVertexArray(vao);
    const vb = this.buffer(gl.ARRAY_BUFFER, vertices);
    gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 24, 0);
    gl.enableVertexAttribArray(1); gl.vertexAttribPointer(1, 3, gl.FLOAT, false, 24, 12);
    gl.vertexAttrib4f(3, 1, 0, 0, 0);
    const ib = this.buffer(gl.ELEMENT_ARRAY_BUFFER, indices);
    gl.bindVertexArray(null);
    this.terrain = { vao, bufs: [vb, ib], count: indices.length };
  }

  // The palette: count column-major matrices (Float32Array count * 16).
  setPalette(data, count) {
    const gl = this.gl;
    gl.bindTexture(gl.TEXTURE_2D, this.palette);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, 4, Math.max(count, 1), 0, gl.RGBA, gl.FLOAT, data);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  }

  // CPU skinning: draw i's skinned positions and normals (null: back to the GPU's).
  setSkinned(i, positions, normals) {
    const gl = this.gl, d = this.draws[i];
    const cpu = !!positions;
    if (!cpu && !d.cpu) return;
    gl.bindBuffer(gl.ARRAY_BUFFER, d.pos);
    gl.bufferData(gl.ARRAY_BUFFER, cpu ? positions : d.rest.positions, gl.DYNAMIC_DRAW);
    if (normals || !cpu) {
      gl.bindBuffer(gl.ARRAY_BUFFER, d.nrm);
      gl.bufferData(gl.ARRAY_BUFFER, cpu ? normals : d.rest.normals, gl.DYNAMIC_DRAW);
    }
    d.cpu = cpu;
  }

  setLines(points) {
    const gl = this.gl;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.lines.buf);
    gl.bufferData(gl.ARRAY_BUFFER, points, gl.DYNAMIC_DRAW);
    this.lines.count = points.length / 3;
  }

  draw(focus, radius, overlay) {
    const gl = this.gl, c = this.canvas;
    gl.viewport(0, 0, c.width, c.height);
    gl.clearColor(BACKGROUND[0], BACKGROUND[1], BACKGROUND[2], 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    let vp = this.fixed; // the fixed view's matrix (viewer.js), else the orbit
    if (!vp) {
      const r = Math.max(radius, 0.05) * this.distance;
      const eye = [focus[0] + r * Math.cos(this.pitch) * Math.sin(this.yaw), focus[1] + r * Math.sin(this.pitch),
        focus[2] + r * Math.cos(this.pitch) * Math.cos(this.yaw)];
      vp = mul4(perspective(0.8, c.width / c.height, r * 0.02, r * 20), lookAt(eye, focus));
    }
    gl.useProgram(this.prog);
    gl.uniformMatrix4fv(this.u.u_view_proj, false, vp);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, this.palette);
    gl.uniform1i(this.u.u_palette, 0);
    gl.uniform1i(this.u.u_lit, 1);
    if (this.terrain) {
      gl.uniform1i(this.u.u_mode, 2);
      gl.uniform4f(this.u.u_color, 0.45, 0.5, 0.42, 1);
      gl.bindVertexArray(this.terrain.vao);
      gl.drawElements(gl.TRIANGLES, this.terrain.count, gl.UNSIGNED_INT, 0);
    }
    for (const d of this.draws) {
      gl.uniform1i(this.u.u_mode, d.cpu ? 2 : d.rigid ? 1 : 0);
      gl.uniform1i(this.u.u_offset, d.offset);
      gl.uniform4fv(this.u.u_color, d.color);
      gl.bindVertexArray(d.vao);
      gl.drawElements(gl.TRIANGLES, d.count, gl.UNSIGNED_INT, 0);
    }
    if (overlay && this.lines.count) {
      gl.disable(gl.DEPTH_TEST);
      gl.uniform1i(this.u.u_mode, 2);
      gl.uniform1i(this.u.u_lit, 0);
      gl.uniform4f(this.u.u_color, 1.0, 0.8, 0.1, 1);
      gl.bindVertexArray(this.lines.vao);
      gl.vertexAttrib4f(3, 1, 0, 0, 0);
      gl.drawArrays(gl.LINES, 0, this.lines.count);
    }
    gl.bindVertexArray(null);
  }
}
