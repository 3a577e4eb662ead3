-- The handle `system` names the platform in messages (0010 reserved it). An account that took it
-- before then could pass for the platform (Security III, finding 9): it gets `system_` and 23
-- characters of its id instead (it still signs in by e-mail); should another account hold that one, a
-- name no sign-up can take (handles have no `-`).
update app_user set handle = 'system_' || substr(replace(user_id, '-', ''), 1, 23)
 where lower(handle) = 'system'
   and not exists (
       select 1 from app_user other
        where other.handle = 'system_' || substr(replace(app_user.user_id, '-', ''), 1, 23));
update app_user set handle = 'system-' || user_id where lower(handle) = 'system';
