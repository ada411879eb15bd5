//! Just enough 3D math for honest world/local transforms: Unity's Euler convention (applied Z,
//! then X, then Y) and quaternion composition. World poses are derived from the parent chain
//! instead of being stored, so a reparent or a parent move can never leave stale values.

use std::f64::consts::PI;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quat {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub w: f64,
}

impl Quat {
    pub const IDENTITY: Quat = Quat {
        x: 0.0,
        y: 0.0,
        z: 0.0,
        w: 1.0,
    };

    fn axis(axis: [f64; 3], degrees: f64) -> Quat {
        let half = degrees.to_radians() / 2.0;
        let s = half.sin();
        Quat {
            x: axis[0] * s,
            y: axis[1] * s,
            z: axis[2] * s,
            w: half.cos(),
        }
    }

    /// `Quaternion.Euler(x, y, z)`: rotate about Z, then X, then Y (q = qy · qx · qz).
    pub fn from_euler(e: [f64; 3]) -> Quat {
        let qx = Quat::axis([1.0, 0.0, 0.0], e[0]);
        let qy = Quat::axis([0.0, 1.0, 0.0], e[1]);
        let qz = Quat::axis([0.0, 0.0, 1.0], e[2]);
        qy.mul(qx).mul(qz)
    }

    /// `Quaternion.eulerAngles`: each angle in `[0, 360)`.
    pub fn to_euler(self) -> [f64; 3] {
        let Quat { x, y, z, w } = self.normalized();
        let m00 = 1.0 - 2.0 * (y * y + z * z);
        let m02 = 2.0 * (x * z + w * y);
        let m10 = 2.0 * (x * y + w * z);
        let m11 = 1.0 - 2.0 * (x * x + z * z);
        let m12 = 2.0 * (y * z - w * x);
        let m20 = 2.0 * (x * z - w * y);
        let m22 = 1.0 - 2.0 * (x * x + y * y);
        let sx = (-m12).clamp(-1.0, 1.0);
        let ax = sx.asin();
        let (ay, az) = if sx.abs() < 0.999_999 {
            (m02.atan2(m22), m10.atan2(m11))
        } else {
            ((-m20).atan2(m00), 0.0)
        };
        [wrap360(ax), wrap360(ay), wrap360(az)]
    }

    pub fn mul(self, o: Quat) -> Quat {
        Quat {
            w: self.w * o.w - self.x * o.x - self.y * o.y - self.z * o.z,
            x: self.w * o.x + self.x * o.w + self.y * o.z - self.z * o.y,
            y: self.w * o.y - self.x * o.z + self.y * o.w + self.z * o.x,
            z: self.w * o.z + self.x * o.y - self.y * o.x + self.z * o.w,
        }
    }

    pub fn inverse(self) -> Quat {
        let n = self.normalized();
        Quat {
            x: -n.x,
            y: -n.y,
            z: -n.z,
            w: n.w,
        }
    }

    pub fn normalized(self) -> Quat {
        let len = (self.x * self.x + self.y * self.y + self.z * self.z + self.w * self.w).sqrt();
        if len < 1e-12 {
            return Quat::IDENTITY;
        }
        Quat {
            x: self.x / len,
            y: self.y / len,
            z: self.z / len,
            w: self.w / len,
        }
    }

    pub fn rotate(self, v: [f64; 3]) -> [f64; 3] {
        let p = Quat {
            x: v[0],
            y: v[1],
            z: v[2],
            w: 0.0,
        };
        let r = self.mul(p).mul(self.inverse());
        [r.x, r.y, r.z]
    }

    pub fn is_identity(self) -> bool {
        let n = self.normalized();
        n.x.abs() < 1e-9 && n.y.abs() < 1e-9 && n.z.abs() < 1e-9
    }
}

fn wrap360(radians: f64) -> f64 {
    let mut d = radians * 180.0 / PI;
    d %= 360.0;
    if d < 0.0 {
        d += 360.0;
    }
    if (360.0 - d).abs() < 1e-7 { 0.0 } else { d }
}

/// A world pose: position, rotation and the (component-wise) lossy scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    pub position: [f64; 3],
    pub rotation: Quat,
    pub scale: [f64; 3],
}

impl Pose {
    pub const ROOT: Pose = Pose {
        position: [0.0; 3],
        rotation: Quat::IDENTITY,
        scale: [1.0; 3],
    };

    /// The world pose of a child with the given local TRS under `self`.
    pub fn child(&self, local_pos: [f64; 3], local_rot: Quat, local_scale: [f64; 3]) -> Pose {
        let scaled = mul3(local_pos, self.scale);
        let offset = self.rotation.rotate(scaled);
        Pose {
            position: add3(self.position, offset),
            rotation: self.rotation.mul(local_rot),
            scale: mul3(self.scale, local_scale),
        }
    }

    /// The local position that puts a child at `world` under `self`.
    pub fn local_position_of(&self, world: [f64; 3]) -> [f64; 3] {
        let rel = sub3(world, self.position);
        let unrotated = self.rotation.inverse().rotate(rel);
        div3(unrotated, self.scale)
    }

    pub fn local_rotation_of(&self, world: Quat) -> Quat {
        self.rotation.inverse().mul(world)
    }

    pub fn local_scale_of(&self, lossy: [f64; 3]) -> [f64; 3] {
        div3(lossy, self.scale)
    }
}

pub fn add3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub fn sub3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn mul3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] * b[0], a[1] * b[1], a[2] * b[2]]
}
/// Component-wise division; a zero scale axis maps to zero rather than infinity.
pub fn div3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    let d = |x: f64, y: f64| if y.abs() < 1e-12 { 0.0 } else { x / y };
    [d(a[0], b[0]), d(a[1], b[1]), d(a[2], b[2])]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter().zip(b.iter()).all(|(x, y)| (x - y).abs() < 1e-6)
    }

    #[test]
    fn editor_euler_round_trips() {
        for e in [
            [0.0, 0.0, 0.0],
            [30.0, 45.0, 60.0],
            [10.0, 200.0, 300.0],
            [80.0, 0.0, 0.0],
        ] {
            let back = Quat::from_euler(e).to_euler();
            assert!(close(back, e), "{e:?} -> {back:?}");
        }
    }

    #[test]
    fn editor_child_pose_composes_and_inverts() {
        let parent = Pose::ROOT.child(
            [10.0, 0.0, 0.0],
            Quat::from_euler([0.0, 90.0, 0.0]),
            [2.0; 3],
        );
        let child = parent.child([1.0, 0.0, 0.0], Quat::IDENTITY, [1.0; 3]);
        // Yaw 90° maps +X to -Z; the parent's scale doubles the offset.
        assert!(
            close(child.position, [10.0, 0.0, -2.0]),
            "{:?}",
            child.position
        );
        assert!(close(
            parent.local_position_of(child.position),
            [1.0, 0.0, 0.0]
        ));
        assert!(close(child.scale, [2.0; 3]));
    }
}
