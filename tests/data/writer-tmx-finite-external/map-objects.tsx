<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.8" tiledversion="1.8.2" name="map-objects" tilewidth="8" tileheight="16" tilecount="2" columns="2" objectalignment="bottomleft">
 <image source="map-objects.png" width="16" height="16"/>
 <tile id="0">
  <properties>
   <property name="name" value="tree"/>
  </properties>
 </tile>
 <tile id="1">
  <properties>
   <property name="name" value="rock &lt;big&gt;"/>
  </properties>
 </tile>
</tileset>
